"""torch.compile wrapped around a library's own loop: one graph-break diagnosis for the breaks
inside it (analyses/diagnoses/graph_breaks.py declares it and its consequences).

`torch.compile(model.generate)` compiles transformers' generation loop: Python control code
(stopping criteria, logits processors, token bookkeeping) that breaks the graph again and again
inside the library, recompiles as the sequence grows, and is no faster for it (probes28a
gpt2_compile_generate: eleven breaks inside transformers' utils.py, each at the user's call,
the top one with a `capture_scalar_outputs` fix, and nothing said about the `torch.compile`
line; compiling `model.forward` instead gives the same tokens with no break). No break is in
the user's code and none can be fixed there: the user's choice of what to compile is the cause.

Where the first function compiled is library code (not the user's file), at least MIN_BREAKS
graph breaks all lie in library code, and the callable the program calls was made by
`NAME = torch.compile(obj.method)` with a method other than a model's forward, one
graph-break diagnosis names the wrapped function at that line, and the breaks and recompiles
at its call fold under it. A library model compiled whole (`torch.compile(model)`) keeps each
break its own diagnosis."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis, UserFrame
from compdiag.analyses.value_writes import numpy_write
from compdiag.formats.user_code import is_user_file

MIN_BREAKS = 2  # one break in a library is that break's diagnosis; more are the wrapping's
# what a compiled nn.Module's first frame is called: a model, not a loop around one
MODULE_CALLS = ("forward", "_call_impl", "_wrapped_call_impl", "__call__")

REASON = ("torch.compile wraps {what}, {where}: {n} graph breaks inside it, none in your "
          "code")
EXPLANATION = (
    "The function compiled first is library code ({fn} in {file}), so Dynamo traces the "
    "library's own Python: its control flow on tensor values, its bookkeeping and its calls "
    "that cannot be traced break the graph inside the library, and none of those lines is "
    "yours to change. The breaks and recompiles folded here all come from what was compiled.")
FIX = ("Compile the model, not the library's loop around it: `torch.compile(model)` (or its "
       "forward) and call {what} as before, so the loop runs in eager and each forward step is "
       "one graph. For transformers' generate, a static KV cache "
       "(`cache_implementation=\"static\"`) keeps the shapes fixed.")
WHY = "a graph break or recompile inside the library function torch.compile wraps"


@dataclass(frozen=True)
class CompiledLibraryDetails(Details):
    """A graph break's details (the fields graph_breaks' relations and limiter read) and the
    wrapped library function's."""
    function: str
    library_file: str
    breaks: int
    call: dict[str, Any]
    frame_skipped: bool = False
    gb_type: str = "compiled library loop"
    debug_context: str = ""
    follow_on: bool | None = None


def at_call(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """Whether `effect` is at the call of the compiled library function `cause` names."""
    d = cause.details
    if not isinstance(d, CompiledLibraryDetails):
        return False
    f = effect.user_frame
    return f.filename == d.call.get("filename") and f.lineno == d.call.get("lineno")


def _callee(line: str | None) -> str | None:
    """The name the call on `line` calls (`out = generate(p, ...)`: generate), if one."""
    try:
        tree = ast.parse((line or "").strip())
    except SyntaxError:
        return None
    names = [n.func.id for n in ast.walk(tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return names[0] if names else None


def _compiled_at(ctx: Any, call: UserFrame) -> tuple[UserFrame, str] | None:
    """The `NAME = torch.compile(X)` line that made the callable the call's line calls, and X."""
    name = _callee(call.line)
    if not name:
        return None
    made = re.compile(rf"^\s*{re.escape(name)}\s*=\s*torch\.compile\((?P<arg>[^,)]+)")
    for path in [call.filename, *sorted(ctx.r.source_paths(ctx.run_id))]:
        for i, line in enumerate(ctx.code_lines(path) or (), 1):
            m = made.match(line)
            if m:
                return ctx.frame(path, i, None, "source"), m.group("arg").strip()
    return None


def library_loop(ctx: Any, kind: str, score: float) -> list[Diagnosis]:
    """The one diagnosis (of `kind`, at `score`) of a library loop torch.compile wrapped, or
    none."""
    first = sorted(ctx.compiles, key=lambda c: (len(c), c))[:1]
    row = ctx.code_row(first[0]) if first else None
    if not row or not row.get("filename") or is_user_file(row.get("filename")):
        return []
    breaks = ctx.r.graph_breaks(ctx.run_id)
    # every break inside library code: reported at a library line, or at the user's line
    # with the library frame it happened in
    if len(breaks) < MIN_BREAKS or any(is_user_file(b.get("filename")) and not b.get("lib_frame")
                                       for b in breaks):
        return []
    if any(numpy_write(ctx, b) for b in breaks):
        return []  # a break on a value the program wrote there: that line's, in its code
    chain = ctx.call_chain(first[0])
    call = chain[-1] if chain else None
    if call is None or not call.filename:
        return []
    made = _compiled_at(ctx, call)
    # a library model's forward (`torch.compile(model)`, `model.forward`) breaking inside is
    # each break's own diagnosis; a method that is not the forward (`model.generate`) is the
    # library's loop around the model
    if made is None or not re.search(r"\.\w+$", made[1]) or made[1].endswith(".forward") \
            or row.get("co_name") in MODULE_CALLS:
        return []
    frame, what = made[0], f"`{made[1]}`"
    where = f"at line {frame.lineno}"
    return [Diagnosis(
        kind, stage="dynamo", compile_id=first[0],
        reason=REASON.format(what=what, where=where, n=len(breaks)),
        user_frame=frame,
        explanation=EXPLANATION.format(fn=row.get("co_name"),
                                       file=str(row.get("filename")).rsplit("/", 1)[-1]),
        fix=FIX.format(what=made[1]), score=score,
        details=CompiledLibraryDetails(function=str(row.get("co_name")),
                                       library_file=str(row.get("filename")),
                                       breaks=len(breaks),
                                       call={"filename": call.filename, "lineno": call.lineno}))]

