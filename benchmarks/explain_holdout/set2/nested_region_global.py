"""pytorch/pytorch#191821 ("[nested compile region] silently incorrect result on global mutation",
https://github.com/pytorch/pytorch/issues/191821): a nested_compile_region reads a global that the
loop rebinds; the compiled region reuses the first iteration's value (expected 2, actual 1)."""
from dataclasses import dataclass

import torch


@dataclass
class RegionInput:
    hidden: torch.Tensor


region_input = RegionInput(torch.tensor(0))


@torch.compiler.nested_compile_region
def region():
    return region_input.hidden + 1


def fn(hidden):
    global region_input
    for _ in range(2):
        region_input = RegionInput(hidden)
        hidden = region()
    return hidden


hidden = torch.tensor(0)
expected = fn(hidden)
actual = torch.compile(fn, backend="eager", fullgraph=True)(hidden)
torch.testing.assert_close(actual, expected)
