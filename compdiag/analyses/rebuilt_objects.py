"""Whether the program means to make a new object for a run of calls (a fresh model and
optimizer per fold): the assignment that makes it sits in an outer loop, and the compiled
call that uses it in a loop inside that one, so each object serves several calls before the
next replaces it. An identity guard on such an object is then fixed by
`torch.compiler.reset()` after each is made, not by "create it once" (probes47c
kfold_fresh_optimizer_step: a new AdamW per fold, "create opt once" led the fix)."""

from __future__ import annotations

import ast

_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def made_per_outer_loop(text: str | None, call_line: int | None, name: str) -> int | None:
    """The line of the assignment to `name` that is in a loop enclosing the loop around
    `call_line` (None: no such assignment, or the code does not parse)."""
    if not text or not call_line or not name.isidentifier():
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    loops = [n for n in ast.walk(tree) if isinstance(n, _LOOPS)
             and n.lineno <= call_line <= (n.end_lineno or n.lineno)]
    if len(loops) < 2:
        return None
    inner = max(loops, key=lambda n: n.lineno)  # the innermost loop around the call
    for outer in loops:
        if outer is inner:
            continue
        for stmt in outer.body:
            if isinstance(stmt, ast.Assign) and stmt.lineno < inner.lineno and any(
                    isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                return stmt.lineno
    return None
