"""An in-place op whose target is a view that does not map one-to-one onto its base (made by
`unfold`, `as_strided` or `expand`), as the first divergent node of a miscompile (probes43b
pilot_tone_unfold_gain, pytorch#198102: `frames.unfold(1, 1, 5).mul_(gain)`, windows with
gaps between them; compiled, the elements between the windows came back zeroed). Compiled
code replays such a write onto the base through a scatter of the view, which torch gets
wrong where the view skips or repeats elements; the divergence was said at `mul_` with no
cause. The facts are stored: the compile's Dynamo graph nodes (dynamo_nodes), each with its
call, whose receiver names the view's node."""

from __future__ import annotations

import re
from typing import Any

# view op -> what makes it not one-to-one
VIEWS = {"unfold": "windows that skip or repeat elements of it",
         "as_strided": "strides that skip or repeat elements of it",
         "expand": "elements repeated by broadcasting"}
_RECEIVER = re.compile(r"^\s*(?P<recv>\w+)\.(?P<op>\w+)\(")
_VIEW_CALL = re.compile(r"(?:\.|torch\.)(?P<view>%s)\(" % "|".join(VIEWS))
CLAUSE = ", an in-place write through `{name}`, a view made by `{view}` (line {lineno})"
EXPLANATION = (" Compiled code writes an in-place op on a view back into the view's base "
               "through a scatter, which torch gets wrong for a view with {what} "
               "(pytorch/pytorch#198102); eager writes the view's elements only.")
FIX = ("Do not write through the `{view}` view: index the base with plain slicing (a strided "
       "slice such as `base[:, ::step]` is one-to-one) and write through that, or compute the "
       "result out of place (`torch.where(mask, x * g, x)`) at line {lineno}. ")


def view_write(ctx: Any, cid: str | None, node: dict[str, Any]) -> tuple[str, str, str] | None:
    """(reason clause, explanation, fix) when the divergent node is an in-place op on a view
    made by one of VIEWS (followed through at most a few other views); None otherwise."""
    name, op = node.get("node"), str(node.get("op") or "")
    if not name or not op.endswith("_") or op.endswith("__"):
        return None
    nodes = {n["node"]: n for n in ctx.r.dynamo_nodes(ctx.run_id, cid)}
    row = nodes.get(name)
    m = _RECEIVER.match(str((row or {}).get("call") or ""))
    target = m.group("recv") if m else None
    seen = 0
    while target in nodes and seen < 4:
        call = str(nodes[target].get("call") or "")
        v = _VIEW_CALL.search(call)
        if v:
            view, lineno = v.group("view"), nodes[target].get("lineno")
            return (CLAUSE.format(name=target, view=view, lineno=lineno),
                    EXPLANATION.format(what=VIEWS[view]), FIX.format(view=view, lineno=lineno))
        r = _RECEIVER.match(call)  # another view of it (`x.view(...)`, `x[...]`): go on
        target, seen = (r.group("recv") if r else None), seen + 1
    return None
