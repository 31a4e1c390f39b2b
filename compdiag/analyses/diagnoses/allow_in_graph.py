"""A function the user put in the graph untraced that could not be, kind `allow_in_graph`.

`torch._dynamo.allow_in_graph(fn)` (or `torch.compiler.allow_in_graph`) tells Dynamo to write
a call of `fn` into the graph without tracing it; AOTAutograd then runs `fn` on fake tensors
to trace it. A function with a Python side effect, a `.item()` or other data-dependent Python
cannot be traced there: the call breaks the graph at the user's line, Dynamo then traces `fn`
as a frame of its own, breaking again inside it and recompiling on what its side effect
changes (probes27 allow_in_graph_stats: a stats helper appending `.item()` to a global list,
marked allow_in_graph "to keep one graph": a break at its call, a break at its `.item()`, a
recompile per step on the list's length, and none of the three named allow_in_graph; the
`.item()` break's own fix, `capture_scalar_outputs`, crashed that program with
PendingUnbackedSymbolNotFound). torch's documentation calls allow_in_graph a footgun for this.

Capture keeps each marking of a function of the user's (capture/config_sets.py: a
`compdiag:allow_in_graph` record, the function's file and line span and the marking line).
Where a graph break or failure is at a call of a marked function or inside it, this kind says
so at that call, and the breaks, recompiles and failures at or inside the function are its
consequences (CAUSES)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses import marked_functions
from compdiag.analyses.consequences import Causes
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.ranking import Cost

KIND = "allow_in_graph"

REASON = ("{fn}() is marked allow_in_graph (line {marked}) but cannot run untraced in the "
          "graph: {what} at line {lineno}")
EXPLANATION = (
    "allow_in_graph makes Dynamo write the call of {fn}() into the graph without tracing it; "
    "AOTAutograd then runs it on fake tensors, which have no values. A function with a Python "
    "side effect (appending to a list, logging), a branch on a tensor's value or a "
    "`.item()`/`.tolist()` cannot run there, so the call broke the graph and Dynamo then "
    "traced {fn}() as a frame of its own: the breaks and recompiles folded here come from the "
    "marking, not from the code they point at.")
FIX = ("Mark {fn}() with `@torch.compiler.disable` in place of allow_in_graph: it then runs in "
       "eager at one graph break, as written. Or drop the marking and let Dynamo trace {fn}() "
       "with its values kept as tensors (`torch.where` for a branch, a returned tensor for "
       "what it records). allow_in_graph is only for a function Dynamo cannot trace but the "
       "rest of the compiler can: tensors in, tensors out, no Python side effect.")
WHY = "inside or at the call of a function marked allow_in_graph: the marking is the cause"


@dataclass(frozen=True)
class AllowInGraphDetails(Details):
    function: str
    filename: str
    first: int
    last: int
    marked_at: int | None


def _calls(line: str | None, name: str) -> bool:
    return bool(line) and re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", line) is not None


def _concerns(filename: str | None, lineno: Any, line: str | None,
              details: AllowInGraphDetails) -> str | None:
    """'at' (a line that calls the function, in any file), 'inside' (a line of its body),
    else None."""
    if not filename or not isinstance(lineno, int):
        return None
    if filename == details.filename and details.first < lineno <= details.last:
        return "inside"
    name = details.function.rsplit(".", 1)[-1]
    return "at" if _calls(line, name) else None


def _is_consequence(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    d = cause.details
    if not isinstance(d, AllowInGraphDetails):
        return False
    f = effect.user_frame
    return _concerns(f.filename, f.lineno, f.line, d) is not None


SPEC = KindSpec(KIND, title="allow_in_graph", words=("allow_in_graph marking",
                                                     "allow_in_graph markings"),
                style="magenta", tie=25, costs={"marking": Cost(310)},
                details=(AllowInGraphDetails,),
                causes=tuple(Causes(KIND, effect, WHY, _is_consequence)
                             for effect in ("graph_break", "recompile", "failure")))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


def _what(row: dict[str, Any]) -> str:
    said = row.get("gb_type") or row.get("reason") or row.get("exc_type") or "it failed"
    return f"Dynamo broke the graph ({str(said).strip()[:90]})"


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    marked = marked_functions.marked(ctx)
    if not marked:
        return []
    # breaks and compile failures: a failed accuracy check or the program's own exception is
    # no sign the function could not run untraced (probes36c allow_in_graph_stale_global)
    rows = [*ctx.r.graph_breaks(ctx.run_id),
            *(f for f in ctx.failures if f.get("stage") not in ("accuracy", "runtime"))]
    out = []
    for data in marked:
        call = data.get("call") if isinstance(data.get("call"), dict) else {}
        details = AllowInGraphDetails(function=str(data.get("function") or data["name"]),
                                      filename=data["filename"], first=data["first"],
                                      last=data["last"], marked_at=call.get("lineno"))
        hits = [(r, _concerns(r.get("filename"), _int(r.get("lineno")), r.get("line"),
                              details)) for r in rows]
        hits = [(r, where) for r, where in hits if where]
        if not hits:
            continue
        # the call's break first: where the marked function met the graph
        row = next((r for r, where in hits if where == "at"), hits[0][0])
        lineno = _int(row.get("lineno"))
        fn = details.function.rsplit(".", 1)[-1]
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=row.get("compile_id"),
            reason=REASON.format(fn=fn, marked=details.marked_at or details.first,
                                 what=_what(row), lineno=lineno),
            user_frame=ctx.frame(row.get("filename"), lineno, row.get("line"), "torch"),
            explanation=EXPLANATION.format(fn=fn), fix=FIX.format(fn=fn),
            score=SPEC.score("marking"), details=details))
    return out


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
