"""A loop of the compiled code over a set, read from the program's stored source: the order
it yields follows each process's hash seed for strings, so the graph it traces comes out in
another order in each process (analyses/caches.py `reordered`; probes36d
feature_set_cache_miss: `for name in FEATURES`, FEATURES a set of feature names)."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.analyses.compiled_source import compiled_defs
from compdiag.analyses.diagnosis import UserFrame

_SET_CALLS = ("set", "frozenset")


def _is_set(node: ast.AST | None) -> bool:
    """A set whose order can change between processes: not one of int constants only (an
    int's hash is itself)."""
    if isinstance(node, ast.Set) and all(isinstance(e, ast.Constant) and isinstance(
            e.value, int) for e in node.elts):
        return False
    return isinstance(node, (ast.Set, ast.SetComp)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id in _SET_CALLS)


def unordered_loop(ctx: Any, cid: str | None = None) -> tuple[UserFrame, str] | None:
    """(the `for` line, the set as written) of the first loop of the compiled function (the
    compile `cid`'s, when given) over a name the module or the function binds to a set, or
    over a set made in place; None when none."""
    for fn, tree, path in compiled_defs(ctx, None if cid is None else [cid]):
        sets = {t.id for scope in (tree.body, fn.body) for node in scope
                if isinstance(node, ast.Assign) and _is_set(node.value)
                for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(fn):  # a `for` statement's or a comprehension's iterable
            target = node.iter if isinstance(node, (ast.For, ast.comprehension)) else None
            if isinstance(target, ast.Name) and target.id in sets or _is_set(target):
                name = ast.unparse(target)
                line = getattr(node, "lineno", None) or getattr(target, "lineno", None)
                return ctx.frame(path, line, evidence="source"), name
    return None
