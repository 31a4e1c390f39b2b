"""A Python float the compiled function hands to an op's number argument (issue 29 §1: the
line that causes it).

Dynamo passes a float argument into the graph as a tensor (`specialize_float=False`), but an
op whose argument must be a Python number (`F.cross_entropy(..., label_smoothing=s)`,
`torch.clamp(x, max=b)`) needs its value, so torch specialises the graph on it: the guard
reads `___as_tensor(s).item() == 0.1125`, and a value that changes every call compiles anew up
to the recompile limit. torch names no line for it; the call of the compiled function was
said, with a fix to wrap the value in a tensor, which the op does not accept (set32/gpu
label_smoothing_schedule_recompile). The line is the op's call inside the compiled function
that takes the name, found in the kept source."""

from __future__ import annotations

import ast
import re
from typing import Any

SPECIALISED = re.compile(r"___as_tensor\((?:L\[')?(\w+)(?:'\])?\)\.item\(\)")
CLAUSE = ", where `{call}(..., {arg})` at line {lineno} needs it as a Python number"
FIX = ("`{call}` takes `{arg}` as a Python number, not a tensor, so Dynamo compiles the graph "
       "for each value {name} takes (torch's guard `___as_tensor({name}).item()`): a value "
       "that changes at every call compiles again each time, up to the recompile limit. Keep "
       "it to a few values (round a schedule to a small set), or compute that part with "
       "tensor ops that take {name} as a tensor (for label smoothing: `(1 - s) * nll + s * "
       "smooth`, with `s` a 0-d tensor), which one graph serves.")


def specialised_use(ctx: Any, cid: str | None, source: str | None) -> dict[str, Any] | None:
    """{frame, clause, fix} for a recompile on a float argument torch specialised for an op's
    number argument, at that op's call in the compiled function; None otherwise."""
    m = SPECIALISED.search(source or "")
    span, d = ctx.def_span(cid), ctx.def_frame(cid)
    if m is None or span is None or not d.filename:
        return None
    name = m.group(1)
    try:
        tree = ast.parse(ctx.source_text(d.filename) or "")
    except (SyntaxError, ValueError):
        return None
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)
                    and span[0] <= n.lineno <= span[1]), key=lambda n: (n.lineno, n.col_offset))
    for node in calls:
        arg = next((f"{k.arg}={name}" for k in node.keywords
                    if isinstance(k.value, ast.Name) and k.value.id == name and k.arg), None)
        arg = arg or next((name for a in node.args
                           if isinstance(a, ast.Name) and a.id == name), None)
        if arg is None:
            continue
        call = ast.unparse(node.func)
        words = dict(call=call, arg=arg, name=name, lineno=node.lineno)
        return {"frame": ctx.frame(d.filename, node.lineno, None, "source"),
                "clause": CLAUSE.format(**words), "fix": FIX.format(**words)}
    return None
