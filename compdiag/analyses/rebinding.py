"""Where the user's program rebinds the attribute behind a graph input (issue 29 §1, evidence
`source`): a parameter replaced by a new object each step (`m.w = nn.Parameter(...)`) instead
of updated in place changes a static input's address, so CUDA graph trees re-record; the fix
changes that assignment, so the diagnosis points at it, found in the program's own source.

A graph input is named as torch names it (`arg0_1`: the post-grad graph's i-th input, Dynamo's
i-th placeholder) and its attribute from Dynamo's source name (`L_fn_parameters_weight_`)."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame

_GRAPH_INPUT = re.compile(r"^arg(\d+)_\d+$")
_ATTR = re.compile(r"_(?:parameters|buffers)_(\w+?)_$")


def input_attribute(ctx: Any, cid: str | None, graph_input: str | None) -> str | None:
    """The module attribute (`weight`) a graph input (`arg0_1`) of compile `cid` reads: the
    Dynamo placeholder at the same position, a parameter or buffer by its source name."""
    m = _GRAPH_INPUT.match(graph_input or "")
    if not m or cid is None:
        return None
    holders = [n for n in ctx.dynamo_nodes(cid) if "(" not in (n.get("call") or "(")
               and not n.get("lineno")]
    i = int(m.group(1))
    if i >= len(holders):
        return None
    attr = _ATTR.search(holders[i].get("call") or "")
    return attr.group(1) if attr else None


def rebinding_frame(ctx: Any, call: UserFrame, attr: str | None) -> UserFrame | None:
    """The assignment of `<anything>.<attr> = ...` (or `setattr(_, "<attr>", _)`) in the loop
    around the user's call `call`, the last before the call: the line that gives the attribute
    a new object on every iteration. None when the source shows no such line."""
    if not attr or not call or not call.filename or not call.lineno:
        return None
    text = ctx.source_text(call.filename)  # the file as the run kept it (store 4)
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While, ast.AsyncFor))
             and n.lineno <= call.lineno <= (n.end_lineno or n.lineno)]
    if not loops:
        return None
    loop = max(loops, key=lambda n: n.lineno)
    found = [n.lineno for n in ast.walk(loop) if _rebinds(n, attr)]
    before = [ln for ln in found if ln < call.lineno] or found
    if not before:
        return None
    return ctx.frame(call.filename, max(before), None, "source")


def _rebinds(node: ast.AST, attr: str) -> bool:
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Attribute) and t.attr == attr for t in targets)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "setattr" and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant) and node.args[1].value == attr)
