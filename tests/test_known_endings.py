"""Known errors said as the program's, however the run ended (probes42a, blind): a custom
autograd.Function's backward returning a transposed gradient (raised at the compiled call,
said as "AOTAutograd failed" with bisect as the fix), and an Inductor C++ kernel's index check
aborting the process on -1 labels (eager raises IndexError on the same data; the fix was
bisect and a minify route that loops). Both are the program's data or code: one table of
known errors (analyses/runtime_fixes.py) answers for an exception and for native code's last
words alike."""

from __future__ import annotations

from compdiag.analyses.ending_words import crash_fix
from compdiag.analyses.runtime_fixes import known_error

ABORT = ("terminate called after throwing an instance of 'std::runtime_error' what():  "
         "kernel, /tmp/torchinductor_root/47/c47.main.cpp:138, index out of bounds: "
         "0 <= tmp11 < 12L")
GRADIENT = ("Function ApplyTemplateBackward returned an invalid gradient at index 1 - got "
            "[48, 24] but expected shape compatible with [24, 48]")


def _crash(native: str | None) -> str:
    return crash_fix(compiled=True, cls="crash", frames=[], first=None, kernel="cpp_fused_0",
                     killed_fix="", where="in compiled code", bisect="BISECT",
                     minify="MINIFY", native=native)


def test_an_index_check_abort_in_a_kernel_is_the_programs_data():
    fix = _crash(ABORT)
    assert "label not below num_classes" in fix and "eager" in fix
    assert "BISECT" not in fix and "COMPDIAG_KEEP_GRAPHS" not in fix


def test_another_native_crash_in_a_kernel_still_bisects():
    fix = _crash("Segmentation fault")
    assert "BISECT" in fix and "MINIFY" in fix


def test_a_transposed_gradient_is_the_functions_backward_at_every_stage():
    for stage in ("aot", "dynamo", "runtime", "backend"):
        rule = known_error(GRADIENT, stage)
        assert rule is not None and rule.eager_fails, stage
        assert "backward" in rule.fix and "gradcheck" in rule.fix


class _Ctx:
    """What crash_commands reads of a RunContext."""

    def __init__(self, survived: bool) -> None:
        self.run_id, self.argv, self.store = 2, ["train.py"], "s.db"
        self.r = self
        self.survived = survived

    def records(self, run_id, *, kind=None, with_payload=True):  # a generator, as the store's
        yield from [{"kind": kind}] if self.survived and kind.endswith("survived") else []


def test_a_run_that_kept_its_graphs_is_not_told_to_keep_them_again():
    """probes42a tagger_keep: the run had COMPDIAG_KEEP_GRAPHS=1, the kept graph's first call
    survived and the crash came later; the fix said to run again with
    COMPDIAG_KEEP_GRAPHS=1 and minify, which answered "no failure": a loop."""
    from compdiag.analyses.ending_words import crash_commands

    again, _ = crash_commands(_Ctx(survived=False))
    assert "COMPDIAG_KEEP_GRAPHS=1" in again and "minify" in again
    # the re-run is a new run: minify names no RUN (the latest), never this run's id 2
    assert "compdiag run --store s.db train.py" in again and "minify --store s.db`" in again
    kept, bisect = crash_commands(_Ctx(survived=True))
    assert "run it again" not in kept and "bisect" in kept and "compdiag bisect" in bisect


def test_a_closure_as_checkpoints_context_fn_is_dynamos_limit_with_a_way_round():
    """probes42d sac_policy_closure_context_fn: `context_fn=lambda: ...` inside a compiled
    forward; said as "a bug in torch" with `@torch.compiler.disable` on forward as the fix,
    which compiled nothing. A module-level function (the cousin) works."""
    rule = known_error("NotImplementedError: checkpoint not implemented for <class "
                       "'torch._dynamo.variables.functions.NestedUserFunctionVariable'> "
                       "context_fn", "dynamo")
    assert rule is not None and not rule.eager_fails
    assert "module level" in rule.fix and "functools.partial" in rule.fix
    assert "bug in torch" not in rule.why


def test_the_summary_line_says_a_run_was_killed():
    """probes42c mel_cnn_cl_freq_pool_tail: the summary of a SIGABRT run read "0 failures"
    and nothing of how it ended."""
    from compdiag.capture.runner import _ended

    assert _ended(134) == " | killed by SIGABRT" and _ended(137) == " | killed by SIGKILL"
    assert _ended(None) == "" and _ended(1) == ""
