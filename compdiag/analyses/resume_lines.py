"""The line of the compiled function a break inside library code came from, read from the
resume function torch made for it: Dynamo names it `torch_dynamo_resume_in_<fn>_at_<line>`, the
line of the compiled function where the break was. Where torch's user stack names only the
call of the compiled module and library frames (Dynamo's traceback leaves out the compiled
forward's own frame), that name is the evidence (probes33f dynamic_quant_serve: a ScriptObject
break inside the quantized Linear that `self.fc1(h)` at line 20 calls, put at the call
`serve(tokens)` at line 32; torch's resume function was `torch_dynamo_resume_in_forward_at_20`)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.compile_id import frame_of, sort_key

_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<fn>\w+?)_at_(?P<line>\d+)$")


def resumed_at(ctx: Any, cid: str | None, at: Any) -> Any:
    """The user frame of the compiled function's line a break in compile CID was at, when AT
    (the frame located for it) lies outside that function and the next resume function of the
    same function names the line inside it; else None."""
    row = ctx.code_row(cid) or {}
    d, span = ctx.def_frame(cid), ctx.def_span(cid)
    if not span or ctx.in_function(cid, at):
        return None
    if any(ctx.in_function(c, at) for c in ctx.compiles if frame_of(c) != frame_of(cid)):
        # AT is in a function of the user's that Dynamo compiled as a frame of its own: the
        # inlined callee the break is in, not a caller (probes34a posenc_variable_classifier:
        # `Variable(...)` at 22 in PositionalEncoding.forward, not its call `self.pos(...)`)
        return None
    name = _RESUME.match(row.get("co_name") or "")
    fn = name.group("fn") if name else row.get("co_name")
    later = sorted((c for c in ctx.compiles if frame_of(c) != frame_of(cid)
                    and sort_key(c) > sort_key(cid)), key=sort_key)
    for c in later:
        m = _RESUME.match((ctx.code_row(c) or {}).get("co_name") or "")
        if m and m.group("fn") == fn and span[0] <= int(m.group("line")) <= span[1]:
            line = int(m.group("line"))
            text = (ctx.source_lines(d.filename) or [])[line - 1:line]
            return ctx.frame(d.filename, line, text[0] if text else None, evidence="torch")
    return None
