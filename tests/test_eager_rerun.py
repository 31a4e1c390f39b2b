"""capture/eager_rerun.py: the ops Dynamo failed on, run in eager on their real inputs, decide
whether a fake-tensor error is the program's (eager raises too) or torch's fake path (eager
runs). Before, explain said "a shape/dtype error there is a bug in the code" for both
(probes45g wn_linear_1d_gain: eager ran `torch._weight_norm` with a 1-D gain)."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.analyses.failure_fixes import failure_fix
from compdiag.capture import eager_rerun


def _graph(fn):
    return torch.fx.symbolic_trace(fn)


def test_a_call_eager_runs_is_said_to_run():
    gm = _graph(lambda v, g: torch._weight_norm(v, g, 0))
    v = torch.randn(4, 6)
    assert eager_rerun.verdict(gm, [v, v.norm(dim=1)]) == "runs"


def test_a_call_eager_rejects_is_said_to_raise_with_its_first_line():
    gm = _graph(lambda a, b: torch.mm(a, b))
    said = eager_rerun.verdict(gm, [torch.randn(2, 3), torch.randn(2, 3)])
    assert said is not None and said.startswith("raises: RuntimeError: ") and "\n" not in said


def test_a_graph_that_could_write_the_programs_state_is_not_run():
    """In-place ops, module calls and setitem: no verdict, and the inputs are untouched."""
    x = torch.zeros(3)
    assert eager_rerun.verdict(_graph(lambda t: t.add_(1)), [x]) is None
    assert eager_rerun.verdict(_graph(torch.nn.Sequential(torch.nn.Linear(3, 3))), [x]) is None
    assert torch.equal(x, torch.zeros(3))


def test_the_random_state_is_restored():
    gm = _graph(lambda t: t + torch.rand(3))
    before = torch.get_rng_state()
    assert eager_rerun.verdict(gm, [torch.zeros(3)]) == "runs"
    assert torch.equal(before, torch.get_rng_state())


def test_the_fix_follows_the_verdict():
    def fix(eager):
        return failure_fix("dynamo", "TorchRuntimeError", "broadcast", run_id=1,
                           argv=["compdiag"], eager=eager)

    assert "a torch bug, not the program's" in fix("runs")
    assert "torch.compiler.disable" in fix("runs")
    raised = fix("raises: RuntimeError: The size of tensor a (4) must match")
    assert raised.startswith("Eager raises too on the same inputs (RuntimeError: The size")
    assert "bisect" not in raised   # nothing of the compiler's to narrow down
    assert "bug in the code" in fix(None)   # no verdict: the words as before



def test_the_programs_own_op_is_its_code_not_torchs():
    """probes46d int8_rowquant_composite_op_data_ptr: a CompositeImplicitAutograd op of the
    program's namespace read `data_ptr()` under fake tensors; the eager verdict called it
    "a torch bug, not the program's". Its packet is not run in eager, and the fix names it."""
    from compdiag.analyses.failure_facts import foreign_op

    assert eager_rerun._foreign_op(torch.ops.aten.mm) is False
    lib = torch.library.Library("cdtest_rerun", "DEF")
    lib.define("ident(Tensor x) -> Tensor")
    assert eager_rerun._foreign_op(torch.ops.cdtest_rerun.ident)
    assert foreign_op("qkern.fake_quant_rows") and not foreign_op("aten.mm.default")
    fix = failure_fix("dynamo", "TorchRuntimeError", "Cannot access data pointer", run_id=1,
                      argv=["compdiag"], eager="runs", program_op="qkern.fake_quant_rows")
    assert fix.startswith("The program's own op `qkern.fake_quant_rows` raised")
    assert "torch bug" not in fix
