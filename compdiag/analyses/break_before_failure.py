"""A Dynamo failure at the line where Dynamo had just broken the graph: the break is the
cause (cause above consequence, issue 29 §2).

probes31b request_bytes_decode: `np.frombuffer(body, ...)` is a NumPy function torch._numpy
does not have, so Dynamo broke the graph there (GB0294) and ran it in eager; the array it got
back (a view of `bytes`) then failed Dynamo's own assertion ("Expected np.nditer base, got
<class 'bytes'>") at the same line, and the failure's fix spoke of fake tensors, register_fake
and bisect. The break's fix (do the NumPy work outside) is what removed both."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.fixes import graph_break_fix
from compdiag.formats.code_text import call_clause
from compdiag.store.reader import compile_id_key

EXPLANATION = ("Dynamo broke the graph at this line first ({reason}) and ran that call in "
               "eager; what it returned is what Dynamo then failed on. The break is the cause: "
               "its fix removes both.")


def breaks_at(ctx: Any, filename: str | None, lineno: int | None) -> list[dict[str, Any]]:
    """The graph breaks torch reported at this user line, in compile order."""
    if not filename or not lineno:
        return []
    return [b for b in ctx.r.graph_breaks(ctx.run_id) if b.get("lineno") == lineno
            and ctx.resolve(b.get("filename")) == ctx.resolve(filename)]


def break_at(ctx: Any, cid: str | None, frame: UserFrame) -> dict[str, Any] | None:
    """A graph break at the failure's own line, in an earlier compile (the break's frame
    and the failing one differ: Dynamo traces what it resumed, or the call the break left to
    eager, as a frame of its own)."""
    if cid is None:
        return None
    return next((b for b in breaks_at(ctx, frame.filename, frame.lineno)
                 if b.get("compile_id")
                 and compile_id_key(b["compile_id"]) <= compile_id_key(cid)), None)


def break_words(b: dict[str, Any]) -> str:
    """The break as the failure's headline names it: torch's reason and the user's call."""
    reason = b.get("reason") or "a graph break"
    return reason + call_clause(b.get("line"), reason)


def break_fix(b: dict[str, Any]) -> str:
    return graph_break_fix(b.get("gb_type") or "", b.get("explanation") or "",
                           b.get("debug_context") or "", b.get("line") or "",
                           b.get("hints") or [])
