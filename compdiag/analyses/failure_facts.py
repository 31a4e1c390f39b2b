"""Facts of a failure that other diagnoses' relations read: whether it was a compile that
failed (so it cached nothing), and whether the op it names is the program's own."""

from __future__ import annotations

from compdiag.analyses.diagnosis import Diagnosis
from compdiag.formats.compile_id import first_attempt
from compdiag.formats.failure_graph import TORCH_NAMESPACES


def failed_compile_cache(effect: Diagnosis, cause: Diagnosis) -> bool:
    """A cache diagnosis (a bypass, a miss) only of compiles that failed before any code."""
    theirs = {first_attempt(x) for x in (cause.compile_id, *cause.compile_ids) if x}
    mine = {first_attempt(x) for x in (effect.compile_id, *effect.compile_ids) if x}
    # a compile stage's failure (not one at run time or of the accuracy check: probes46d, "the
    # compile failed" over accuracy mismatches), and not the backward's (the forward's compile
    # did not fail)
    return cause.stage in COMPILE_FAILED and "(in the backward graph)" not in cause.reason \
        and bool(mine) and mine <= theirs


def foreign_op(op: str | None) -> bool:
    """An op of the program's own namespace (its body is the program's code, not torch's)."""
    return bool(op) and str(op).removeprefix("torch.ops.").split(".")[0] not in TORCH_NAMESPACES


COMPILE_FAILED = ("dynamo", "aot", "inductor_lowering", "inductor_codegen", "kernel_compile",
                  "backend")
