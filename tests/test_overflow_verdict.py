"""Eager overflowing a low-precision float where float64 stays finite is found at the op that
overflows and said as that (accuracy_localise.localise_conditioning's `overflow`,
narrowing_words.overflow_words). probes33f fp16_rmsnorm_serve: `h.pow(2)` (line 16) went past
float16's 65504 in eager; before this test the verdict "compiled is closer to float64" sat
at the model's call (line 28) with an emulate_precision_casts fix that reproduces the
overflow."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.analyses.narrowing_words import overflow_words
from compdiag.capture.accuracy_compare import Tolerance
from compdiag.capture.accuracy_localise import localise_conditioning


def _rms(h):
    var = h.pow(2).mean(-1, keepdim=True)
    return h * torch.rsqrt(var + 1e-5)


def _traced(*args) -> torch.fx.GraphModule:
    """_rms traced, each node's example value kept as Dynamo keeps it."""
    gm = torch.fx.symbolic_trace(_rms)

    class Keep(torch.fx.Interpreter):
        def run_node(self, n):
            n.meta["example_value"] = out = super().run_node(n)
            return out

    Keep(gm).run(*args)
    return gm


def test_the_op_where_eager_overflows_is_found():
    h = torch.full((4, 8), 300.0, dtype=torch.float16)  # 300**2 = 90000 > 65504
    gm = _traced(h)
    node = localise_conditioning(gm, [h], torch.random.get_rng_state(), Tolerance(1e-3, 1e-3))
    assert node is not None and node["op"] == "pow" and node.get("overflow"), node
    small = torch.full((4, 8), 3.0, dtype=torch.float16)
    assert not (localise_conditioning(gm, [small], torch.random.get_rng_state(),
                                      Tolerance(1e-3, 1e-3)) or {}).get("overflow")


def test_the_overflow_is_said_with_a_float32_fix():
    said = overflow_words({"node": "pow_1", "op": "pow", "overflow": True}, "torch.float16")
    assert said is not None
    reason, explanation, fix = said
    assert reason == "; eager overflows float16 at pow (node pow_1)"
    assert "float32" in fix and ".to(torch.float16)" in fix
    assert overflow_words({"node": "pow_1", "op": "pow"}, "torch.float16") is None
