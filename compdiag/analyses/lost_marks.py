"""A `mark_dynamic` on a tensor the compiled function never gets (issue 29 §1: the line that
caused it).

`torch._dynamo.mark_dynamic(frames, 0)` marks that tensor object; a call that passes something
computed from it (`serve(preprocess(frames))`, `serve(frames.float())`) hands the compiled
function a new tensor without the mark, so its size is static again and every new size
recompiles (probes34c camera_batch_mark_dynamic: the limit was said at the call with a fix
to drop `dynamic=False`, and "mark_dynamic fails while it is set", which it does not where the
tensor marked is the one passed). Read from the program's source: the mark on the lines before
the compiled call, and the call's argument built from the marked name."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.formats.code_text import callee, calls_in

_MARKERS = ("mark_dynamic", "maybe_mark_dynamic")


def is_mark(node: ast.AST) -> bool:
    """Whether a node is a call of `mark_dynamic` / `maybe_mark_dynamic` with an argument."""
    return isinstance(node, ast.Call) and callee(node).rsplit(".", 1)[-1] in _MARKERS \
        and bool(node.args)
# how many lines above the compiled call a mark is looked for
_WINDOW = 12
REASON = ("; `{mark}` (line {lineno}) marks {name}, but the compiled call passes "
          "`{arg}`, a new tensor without the mark")
EXPLANATION = ("mark_dynamic marks one tensor object; `{arg}` at line {call_lineno} is "
               "computed from {name} and is another tensor, which carries no mark, so the "
               "compiled function sees a static size and every new size compiles again.")
FIX = ("Mark the tensor the compiled function receives: `x = {arg}`, then "
       "`torch._dynamo.mark_dynamic(x, {dim})` and pass `x` (or mark inside the function that "
       "builds it).")


def lost_mark(ctx: Any, call: Any) -> dict[str, Any] | None:
    """{mark, name, dim, arg, lineno, call_lineno} where a mark_dynamic on a name in the
    lines before the compiled call `call` (a UserFrame) marks a tensor the call passes only
    through an expression computed from it; None otherwise."""
    if call is None or not call.filename or not call.lineno:
        return None
    lines = ctx.source_lines(call.filename) or []
    marked: dict[str, tuple[int, str, str]] = {}
    for k in range(max(1, call.lineno - _WINDOW), call.lineno):
        text = lines[k - 1].strip() if k - 1 < len(lines) else ""
        for node in calls_in(text):
            if is_mark(node) and isinstance(node.args[0], ast.Name):
                dim = ast.unparse(node.args[1]) if len(node.args) > 1 else "0"
                marked[node.args[0].id] = (k, text, dim)
    if not marked:
        return None
    # a marked name bound again before the call (`images = images.to(memory_format=...)`):
    # the call passes the new tensor under the old name (probes40f channels_last_drops_mark)
    for name, (k, text, dim) in marked.items():
        for j in range(k + 1, call.lineno):
            again = _rebinding(lines[j - 1] if j - 1 < len(lines) else "", name)
            if again is not None and _passes(call.line or "", name):
                return {"mark": text, "name": name, "dim": dim, "arg": again, "lineno": k,
                        "call_lineno": j, "at": j}  # the line that dropped the mark
    for node in calls_in(call.line or ""):
        for arg in node.args:
            if isinstance(arg, ast.Name):
                continue  # passed as it is: the mark holds
            used = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
            hit = next((m for m in marked if m in used), None)
            if hit is not None:
                k, text, dim = marked[hit]
                return {"mark": text, "name": hit, "dim": dim, "arg": ast.unparse(arg),
                        "lineno": k, "call_lineno": call.lineno}
    return None


def _rebinding(line: str, name: str) -> str | None:
    """The expression a plain `NAME = EXPR` line binds NAME to, else None."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return None
    stmt = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                            for t in stmt.targets):
        return ast.unparse(stmt.value)
    return None


def _passes(line: str, name: str) -> bool:
    """Whether the call on LINE passes NAME itself as an argument."""
    return any(isinstance(a, ast.Name) and a.id == name
               for node in calls_in(line) for a in node.args)
