"""TF32 measured, not guessed (capture/tf32.py, issue 29 §4). set10/gpu's
conv_tf32_fp64_reference (pytorch#158530): a float32 CUDA convolution compared with a float64
reference fails the program's own check while compiled equals eager; on main before this
change explain called it "ill-conditioned" (amplification judged against float32's rounding,
not TF32's). The GPU half runs in tests/gpu; here the judgement and the flags' round trip."""

from __future__ import annotations

import torch

from compdiag.capture import tf32
from compdiag.capture.accuracy_compare import OutputCheck


def _out(eager_rel: float, verdict: str | None = "ill_conditioned") -> OutputCheck:
    detail = {"fp64": {"eager_rel": eager_rel, "compiled_rel": eager_rel}}
    if verdict:
        detail["verdict"] = verdict
    return OutputCheck("output 0", True, 0.0, 0.0, detail)


def test_an_error_that_falls_with_tf32_off_is_tf32s():
    ref64 = torch.linspace(1, 2, 1000, dtype=torch.float64)
    without = ref64.float()  # float32's own rounding: ~1e-8 relative
    o = _out(3e-4)
    tf32.judge([o], [without], [ref64])
    assert o.detail["verdict"] == "tf32"
    assert o.detail["tf32"]["eager_rel"] == 3e-4
    assert o.detail["tf32"]["eager_rel_without_tf32"] < 3e-6


def test_an_error_tf32_does_not_explain_keeps_its_verdict():
    ref64 = torch.linspace(1, 2, 1000, dtype=torch.float64)
    without = (ref64 * (1 + 2e-4)).float()  # as far off with TF32 off: not TF32's
    o = _out(3e-4)
    tf32.judge([o], [without], [ref64])
    assert o.detail["verdict"] == "ill_conditioned" and "tf32" not in o.detail
    miscompile = _out(3e-4, "miscompile")
    tf32.judge([miscompile], [ref64.float()], [ref64])
    assert miscompile.detail["verdict"] == "miscompile"  # a real verdict is never replaced


def test_tf32_off_restores_both_settings():
    before = (torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision())
    torch.set_float32_matmul_precision("high")
    try:
        with tf32.off():
            assert torch.get_float32_matmul_precision() == "highest"
            assert torch.backends.cudnn.allow_tf32 is False
        assert torch.get_float32_matmul_precision() == "high"
        assert torch.backends.cudnn.allow_tf32 == before[0]
    finally:
        torch.set_float32_matmul_precision(before[1])


def test_a_cpu_graph_never_pays_the_extra_run():
    gm = torch.fx.symbolic_trace(torch.nn.Linear(4, 4))
    assert not tf32.may_apply(gm, [torch.randn(2, 4)])
    assert not tf32.notable([_out(1e-7)]) and tf32.notable([_out(1e-3)])

