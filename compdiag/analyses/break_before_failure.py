"""A Dynamo failure at the line where Dynamo had just broken the graph: the break is the
cause (cause above consequence, issue 29 §2).

probes31b request_bytes_decode: `np.frombuffer(body, ...)` is a NumPy function torch._numpy
does not have, so Dynamo broke the graph there (GB0294) and ran it in eager; the array it got
back (a view of `bytes`) then failed Dynamo's own assertion ("Expected np.nditer base, got
<class 'bytes'>") at the same line, and the failure's fix spoke of fake tensors, register_fake
and bisect. The break's fix (do the NumPy work outside) is what removed both."""

from __future__ import annotations

import json
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.fixes import graph_break_fix
from compdiag.formats.code_text import called
from compdiag.store.reader import compile_id_key

EXPLANATION = ("Dynamo broke the graph at this line first ({reason}) and ran that call in "
               "eager; what it returned is what Dynamo then failed on. The break is the cause: "
               "its fix removes both.")


def break_at(ctx: Any, cid: str | None, frame: UserFrame) -> dict[str, Any] | None:
    """A graph break at the failure's own line, in an earlier compile (the break's frame
    and the failing one differ: Dynamo traces what it resumed, or the call the break left to
    eager, as a frame of its own)."""
    if cid is None or not frame.lineno:
        return None
    for b in ctx.r.graph_breaks(ctx.run_id):
        if (b.get("compile_id") and compile_id_key(b["compile_id"]) <= compile_id_key(cid)
                and b.get("lineno") == frame.lineno
                and ctx.resolve(b.get("filename")) == frame.filename):
            return b
    return None


def break_words(b: dict[str, Any]) -> str:
    """The break as the failure's headline names it: torch's reason and the user's call."""
    callee = called(b.get("line"))
    return (b.get("reason") or "a graph break") + (
        f", calling `{callee}(...)`" if callee and callee.rsplit(".", 1)[-1] not in
        (b.get("reason") or "") else "")


def break_fix(b: dict[str, Any]) -> str:
    hints = b.get("hints") or []
    if isinstance(hints, str):
        try:
            hints = json.loads(hints)
        except ValueError:
            hints = [hints]
    return graph_break_fix(b.get("gb_type") or "", b.get("explanation") or "",
                           b.get("debug_context") or "", b.get("line") or "", hints)
