"""Inductor's random numbers differ from eager's: CompilerBisector blames
inductor / inductor_fallback_random."""
import sys

import torch
from torch._dynamo.utils import preserve_rng_state


def foo():
    return torch.rand([10]) + 1


with preserve_rng_state():
    out = foo()
with preserve_rng_state():
    out_c = torch.compile(foo)()
sys.exit(0 if torch.allclose(out, out_c) else 1)
