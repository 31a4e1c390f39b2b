"""An end the program asked for while it handled an exception, and anomaly mode's NaN in a
compiled backward (issue 29 §2, the cause above its consequence; benchmarks/probes37c
anomaly_nan_compiled_backward).

A program that catches an error and exits (`except RuntimeError: ... raise SystemExit(3)`,
`sys.exit(1)` in a handler, `raise ValueError(...) from e`) ends with the exit, but what ended
it is the exception it was handling: capture keeps that one beside the exit
(program_exceptions.handling), and the program kind diagnoses it, with the exit said after it.

`torch.autograd.set_detect_anomaly(True)` names the backward node whose output holds NaN or
inf; through compiled code that node is AOTAutograd's `CompiledFunctionBackward`, one node for
the whole compiled graph, and anomaly mode's forward traceback stops at the compiled call. The
op is the compiled graph's op whose derivative is infinite somewhere finite (sqrt at 0, log
at 0, a norm of a zero vector), found in the stored graphs (SINGULAR, data), at its line."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from compdiag.analyses.locate import locate

# Ops whose derivative is inf or NaN at a finite input: what makes a backward NaN where the
# forward was finite. op -> where (words).
SINGULAR: dict[str, str] = {
    "sqrt": "sqrt's derivative 1/(2·sqrt(x)) is inf at x = 0",
    "rsqrt": "rsqrt's derivative is inf at x = 0",
    "linalg_vector_norm": "a norm's derivative x/‖x‖ is 0/0 for a zero vector",
    "norm": "a norm's derivative x/‖x‖ is 0/0 for a zero vector",
    "_cdist_forward": "cdist's derivative is 0/0 where two points coincide",
    "log": "log's derivative 1/x is inf at x = 0",
    "log2": "log2's derivative is inf at x = 0",
    "log10": "log10's derivative is inf at x = 0",
    "reciprocal": "1/x's derivative is inf at x = 0",
    "acos": "acos's derivative is inf at ±1",
    "asin": "asin's derivative is inf at ±1",
    "atanh": "atanh's derivative is inf at ±1",
    "atan2": "atan2's derivative is 0/0 at (0, 0)",
}
ANOMALY = re.compile(r"Function '(\w*CompiledFunction\w*)' returned (nan|inf) values in its "
                     r"(\w+) output")
ANOMALY_FIX = ("{guard}To see the op anomaly mode would name, run the step eagerly once with "
               "the same inputs (`torch.compiler.set_stance(\"force_eager\")` around it): "
               "eager names the op's own backward (e.g. SqrtBackward0) and its forward line.")
ANOMALY_EXPLANATION = ("torch.autograd.set_detect_anomaly(True) found {what} values in the "
                       "backward of compiled code: the whole compiled graph is one autograd "
                       "node, {node}, so anomaly mode cannot name the op, and its forward "
                       "traceback stops at the compiled call. A derivative that is infinite at a "
                       "finite input gives {what} in eager too: the math, not torch.compile "
                       "(running it eagerly, below, confirms it).")


def handled(exc: dict[str, Any]) -> dict[str, Any] | None:
    """The exception the program was handling when it raised `exc`, shaped as a program
    exception (capture/failures.handled_exception), or None."""
    inner = exc.get("handling")
    if not isinstance(inner, dict) or not inner.get("exc_type"):
        return None
    return {"exc_type": inner["exc_type"], "message": inner.get("message") or "",
            "frames": [f for f in inner.get("frames") or [] if isinstance(f, dict)],
            "compiled": inner.get("compiled"), "stage": None, "compile_id": None}


def then_exited(d: Any, ctx: Any, exc: dict[str, Any], frame: Any) -> Any:
    """Diagnosis `d` of the handled exception, with the exit that followed it said after."""
    code = ctx.run.get("exit_code")
    how = "sys.exit" if exc.get("exc_type") == "SystemExit" else exc.get("exc_type")
    at = f" at line {frame.lineno}" if frame.lineno else ""
    said = f"; the program then ended with {how}{at} (status {code})"
    return dataclasses.replace(
        d, reason=d.reason + said,
        explanation=f"{d.explanation} The program caught it and ended with {how}{at}, "
                    f"status {code}: the exit is its consequence.")


def anomaly_nan(ctx: Any, message: str) -> dict[str, Any] | None:
    """Anomaly mode's NaN/inf in a compiled backward: {what, node, candidates: [(op, line
    dict, words)]}, the compiled graphs' singular ops at their user lines, graph order."""
    m = ANOMALY.search(message or "")
    if m is None:
        return None
    found: list[tuple[str, dict[str, Any], str]] = []
    seen: set[tuple[Any, Any]] = set()
    for cid in ctx.compiles:
        for op, words in SINGULAR.items():
            for line in ctx.op_user_lines(cid, op):
                key = (line.get("filename"), line.get("lineno"))
                if key not in seen:
                    seen.add(key)
                    found.append((op, line, words))
    return {"what": "NaN" if m.group(2) == "nan" else "inf",
            "node": m.group(1), "candidates": found}


def anomaly_words(ctx: Any, anomaly: dict[str, Any], surfaced: dict[str, Any] | None
                  ) -> tuple[Any, dict[str, str]]:
    """(frame, reason/explanation/fix) of anomaly_nan's finding: at the compiled graphs' op
    whose derivative is singular, else where the backward was called."""
    cands = anomaly["candidates"]
    frame = locate(ctx, torch=[[c[1] for c in cands[:1]], surfaced])
    op, words = (cands[0][0], cands[0][2]) if cands else (None, None)
    where = f" at line {frame.lineno}" if frame.lineno and cands else ""
    others = ", ".join(f"{o} (line {ln.get('lineno')})" for o, ln, _ in cands[1:4])
    explanation = ANOMALY_EXPLANATION.format(**anomaly) + (
        f" The compiled graph's op whose derivative is singular: {op}{where} ({words})"
        + (f"; also {others}" if others else "") + "." if op else "")
    guard = (f"Keep {op}'s input away from its singular point (e.g. `x.clamp_min(eps)` "
             f"before {op}). " if op else "")
    return frame, {"reason": f"anomaly mode: {anomaly['node']} returned {anomaly['what']}"
                             + (f", from {op}{where}" if op else ""),
                   "explanation": explanation, "fix": ANOMALY_FIX.format(guard=guard)}
