"""A rank aborted by a collective mismatch says so, from the C++ runtime's last words the
job's launcher recorded, with the setting that caused it. probes40d
ddp_python_reducer_multitask, blind: DDP with `optimize_ddp = "python_reducer"` and
find_unused_parameters, ranks training different heads; gloo aborted rank 1 ("Received data
size doesn't match expected size. Is there a distributed collective mismatch in your code?")
and explain said "killed by SIGABRT (nothing after it was recorded)" with "run it without
torch.compile to confirm". Fails on the code before (no module)."""

from __future__ import annotations

from types import SimpleNamespace

from compdiag.analyses.collective_mismatch import (MISMATCH_FIX, PYTHON_REDUCER_FIX,
                                                   launcher_native, mismatch_fix)
from compdiag.analyses.diagnosis import UserFrame

NATIVE = ("terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
          "  what():  [enforce fail at pair.cc:456] 160 vs 32. Received data size doesn't "
          "match expected size. Is there a distributed collective mismatch in your code?\n"
          "[rank0]: Traceback (most recent call last):\n[rank0]:   File \"x.py\"\n")


class _Reader:
    def __init__(self, wraps=()):
        self.wraps = list(wraps)

    def job_launcher(self, job):
        return {"id": 1} if job == "run-1" else None

    def program_ends(self, run_id):
        return [{"native_message": NATIVE}] if run_id == 1 else []

    def ddp_wraps(self, run_id):
        return self.wraps


def _ctx(wraps=()):
    return SimpleNamespace(r=_Reader(wraps), run_id=3, compiles={},
                           frame=lambda f, n, line=None, evidence=None: UserFrame(f, n, line,
                                                                                  evidence))


def test_the_launchers_last_words_stop_before_the_ranks_python():
    text = launcher_native(_Reader(), {"job": "run-1", "rank": 1})
    assert text.startswith("terminate called") and "collective mismatch" in text
    assert "[rank0]" not in text
    assert launcher_native(_Reader(), {"job": None}) is None


def test_python_reducer_with_unused_parameters_is_the_cause():
    wrap = {"settings": {"python_reducer": True, "find_unused_parameters": True},
            "filename": "/u/train.py", "lineno": 30, "line": "ddp = DDP(model, ...)"}
    fix, frame = mismatch_fix(_ctx([wrap]), NATIVE)
    assert fix == PYTHON_REDUCER_FIX and frame.lineno == 30


def test_another_mismatch_gets_the_general_fix_and_other_words_none():
    assert mismatch_fix(_ctx(), NATIVE)[0] == MISMATCH_FIX
    assert mismatch_fix(_ctx(), "terminate called after throwing std::bad_alloc") is None


def test_a_module_run_gets_no_perf_command_that_cannot_run(tmp_path):
    """probes40d: explain printed `compdiag perf --store S -m torch.distributed.run ...` for
    a torchrun job's rank; perf takes a script, and exited "unrecognized arguments: -m"."""
    from compdiag.analyses.context import MODULE_PERF, RunContext
    from compdiag.store.reader import Reader
    from compdiag.store.writer import Writer

    path = tmp_path / "s.db"
    w = Writer(path)
    run = w.begin_run(source="run", argv=["-m", "torch.distributed.run", "--nproc-per-node",
                                          "2", "train.py"], cwd=str(tmp_path))
    w.end_run(run, exit_code=1, status="done")
    w.close()
    with Reader(path) as r:
        ctx = RunContext(r, run)
        assert ctx.perf_command() == MODULE_PERF == ctx.perf_try_command()
        assert "`" not in MODULE_PERF


def test_an_in_place_write_into_a_parameter_gets_no_grad():
    """probes40d local_sgd_param_average, blind: `dist.all_reduce(p)` on each parameter inside
    a compiled averaging step raised "a leaf Variable that requires grad is being used in an
    in-place operation" on fake tensors; the fix said to check the line in eager."""
    from compdiag.analyses.runtime_fixes import runtime_fix

    msg = ("RuntimeError: a leaf Variable that requires grad is being used in an in-place "
           "operation.")
    for stage in ("dynamo", "runtime"):
        assert "torch.no_grad()" in (runtime_fix(msg, stage) or ""), stage
