"""The exception that ended the program, so that a run that failed is never "no problems
found": at the user's line where it surfaced, with the frame it was raised in.

- It came through compiled code (Dynamo's eval frame, AOTAutograd's CompiledFunction and
  runtime wrappers, an Inductor output module, cudagraph trees: capture/failures.py decides):
  a `failure` of stage `runtime` (or the compile stage it escaped from). The failures kind
  usually reports it already, from the failure row capture wrote; explain folds this one into
  it then (FOLDS), so it shows only where no row did.
- It did not: kind `program`, "the program raised X at line N, outside compiled code", in the
  `program` cost class (below everything torch.compile did, but shown).
  A failed check of the user's own is the `user_check` class, next to accuracy.
- A user's own check that failed (an assert, or a raise right after a comparison) when
  `run --check-accuracy` found every compiled graph equal to eager says exactly that, and
  names what the check compared.
"""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnoses.failures import (exception_frames, failure_fix,
                                                  stage_explanation)
from compdiag.analyses.accuracy import what_was_compared
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.ranking import score
from compdiag.analyses.summary import summarise

KIND = "program"


@dataclass(frozen=True)
class ProgramDetails(Details):
    exc_type: str
    compiled: bool
    surfaced_at: dict[str, Any] | None
    raised_in: dict[str, Any] | None
    came_through: str | None = None
    # A failed check of the user's own: the source text of what it compared, and what
    # --check-accuracy found (equal | mismatch | not run).
    check: str | None = None
    accuracy: str | None = None
    omit_none = ("came_through", "check", "accuracy")


# What a user's own accuracy check looks like: the exception types it raises, and the
# comparisons a check line (or the `if` right above a `raise`) makes.
CHECK_TYPES = ("AssertionError",)
COMPARISON = re.compile(r"\b(?:allclose|isclose|assert_close|assert_allclose|assertEqual|"
                        r"assertTrue|equal|same)\s*\(|[=!]=|(?<![-=<>])[<>]=?(?![<>])")
RAISE = re.compile(r"^\s*raise\b")
LOOK_BACK = 3  # lines above a `raise` searched for the comparison that led to it

CHECK_EQUAL = ("`run --check-accuracy` compared every compiled graph with eager and found them "
               "equal within tolerance, so the difference this check sees is rounding that "
               "torch.compile is allowed (reordered reductions, fused ops): compare with the "
               "tolerances of `torch.testing.assert_close` (or against an fp64 reference, as "
               "`torch._dynamo.utils.same` does) instead of exact equality or tighter bounds.")
CHECK_MISMATCH = ("`run --check-accuracy` found a compiled graph that differs from eager: see "
                  "the accuracy diagnosis.")
CHECK_UNMEASURED = ("Run it again under `compdiag run --check-accuracy` to see whether any "
                    "compiled graph differs from eager.")
# Known errors of the program's own that torch.compile set up (every word in the message).
PROGRAM_FIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("_orig_mod.",),
     "torch.compile wraps a module in an OptimizedModule whose state_dict keys start with "
     "`_orig_mod.` (pytorch/pytorch#101107): save `compiled._orig_mod.state_dict()` (the "
     "original module's), or strip the prefix before `load_state_dict`."),
)
OUTSIDE = ("The traceback does not pass through compiled code: this is the program's own "
           "error, not torch.compile's. Check whether the script raises it without "
           "torch.compile (`torch.compiler.set_stance(\"force_eager\")`).")


def _source(frame: dict[str, Any] | None) -> str:
    if not frame or not frame.get("filename") or not frame.get("lineno"):
        return ""
    return (frame.get("line") or linecache.getline(frame["filename"], int(frame["lineno"]))
            or "").strip()


def user_check(exc: dict[str, Any], surfaced: dict[str, Any] | None) -> str | None:
    """The source of the comparison a failed check made, or None when it is not a check."""
    line = _source(surfaced)
    if not line:
        return None
    if exc.get("exc_type") in CHECK_TYPES and (line.startswith("assert") or
                                               COMPARISON.search(line)):
        return line
    if RAISE.match(line) and surfaced:
        for back in range(1, LOOK_BACK + 1):
            above = linecache.getline(surfaced["filename"], int(surfaced["lineno"]) - back)
            if above.strip() and COMPARISON.search(above):
                return f"{above.strip()} … {line}"
    return None


def _accuracy_state(ctx: Any) -> str:
    rows = ctx.r.accuracy(ctx.run_id)
    if not rows:
        return "not run"
    return "equal" if all(r.get("ok") for r in rows) else "mismatch"


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    exc = ctx.program_exception
    if exc is None:
        return []
    surfaced, raised = exception_frames(exc)
    frame = ctx.user_frame(surfaced)
    exc_type = exc.get("exc_type") or "Exception"
    message = exc.get("message") or ""
    reason = summarise(message, exc_type)
    said = summarise(message) or exc_type
    where = f" at line {frame.lineno}" if frame.lineno else ""
    compiled = bool(exc.get("compiled"))
    common = dict(compile_id=exc.get("compile_id"), user_frame=frame, torch_message=message)
    if compiled:
        stage = exc.get("stage") or "runtime"
        return [Diagnosis(
            "failure", stage=stage, reason=reason,
            explanation=stage_explanation(stage, True) + f" It came through "
                                                         f"{exc['compiled']}.",
            fix=failure_fix(stage, exc_type, reason, run_id=ctx.run_id, argv=ctx.argv,
                            store_arg=ctx.store_arg, torch_message=message),
            score=score("crash"), **common,
            details=ProgramDetails(exc_type=exc_type, compiled=True, surfaced_at=surfaced,
                                   raised_in=raised, came_through=exc.get("compiled")))]
    check = user_check(exc, surfaced)
    accuracy = _accuracy_state(ctx) if check else None
    if check:
        verdict = {"equal": CHECK_EQUAL, "mismatch": CHECK_MISMATCH}.get(accuracy or "",
                                                                         CHECK_UNMEASURED)
        if accuracy == "equal":  # say what the check compared: which values, how close
            verdict = f"{what_was_compared(ctx.r.accuracy(ctx.run_id))} {verdict}"
        head = f"your own check{where} failed" + (
            ", while --check-accuracy found the compiled graphs equal to eager"
            if accuracy == "equal" else "")
        return [Diagnosis(
            KIND, stage=None, reason=f"{head}: `{check[:200]}` ({said})",
            explanation=f"The program raised {exc_type}{where}, outside compiled code, in a "
                        f"check that compares `{check[:300]}`.",
            fix=verdict, score=score("user_check"), **common,
            details=ProgramDetails(exc_type=exc_type, compiled=False, surfaced_at=surfaced,
                                   raised_in=raised, check=check, accuracy=accuracy))]
    return [Diagnosis(
        KIND, stage=None,
        reason=f"the program raised {exc_type}{where}, outside compiled code: {said}",
        explanation=f"The run ended with {exc_type}{where}; the exception was raised in "
                    f"{(raised or {}).get('filename')}:{(raised or {}).get('lineno')} "
                    f"({(raised or {}).get('name')}), outside compiled code.",
        fix=" ".join(x for x in (next((fix for words, fix in PROGRAM_FIXES
                                       if all(w in message for w in words)), None), OUTSIDE)
                     if x),
        score=score(KIND), **common,
        details=ProgramDetails(exc_type=exc_type, compiled=False, surfaced_at=surfaced,
                               raised_in=raised))]
