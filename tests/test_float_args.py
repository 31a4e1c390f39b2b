"""A float argument torch specialised for an op's number argument is said at that op's call
in the compiled function (analyses/float_args.py). Caught by set32/gpu
label_smoothing_schedule_recompile (blind, H100, torch 2.11): `F.cross_entropy(...,
label_smoothing=smoothing)` with a schedule that changes every step hit the recompile limit
on `___as_tensor(smoothing).item()`, said at the compiled function's call with a fix to wrap
the value in a tensor, which cross_entropy's label_smoothing does not take."""

from __future__ import annotations

from types import SimpleNamespace

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.float_args import specialised_use

PROGRAM = """import torch
import torch.nn.functional as F


@torch.compile
def train_loss(x, y, smoothing, scale):
    logits = x * scale
    return F.cross_entropy(logits, y, label_smoothing=smoothing)
"""


def _ctx() -> SimpleNamespace:
    return SimpleNamespace(
        def_span=lambda cid: (6, 8),
        def_frame=lambda cid: UserFrame("/u/train.py", 6, "def train_loss(x, y, smoothing):"),
        source_text=lambda path: PROGRAM,
        frame=lambda f, n, line, evidence: UserFrame(f, n, PROGRAM.splitlines()[n - 1]))


def test_the_op_that_needs_the_number_is_the_line():
    used = specialised_use(_ctx(), "0/1", "___as_tensor(smoothing).item()")
    assert used["frame"].lineno == 8
    assert "`F.cross_entropy(..., label_smoothing=smoothing)` at line 8" in used["clause"]
    assert "as a Python number" in used["fix"] and "recompile limit" in used["fix"]


def test_a_float_used_only_in_tensor_arithmetic_or_another_guard_is_not():
    assert specialised_use(_ctx(), "0/1", "___as_tensor(scale).item()") is None
    assert specialised_use(_ctx(), "0/1", "L['smoothing']") is None
