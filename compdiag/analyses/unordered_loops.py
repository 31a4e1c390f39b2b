"""A loop of the compiled code over a set, read from the program's stored source: the order
it yields follows each process's hash seed for strings, so the graph it traces comes out in
another order in each process (analyses/caches.py `reordered`; probes36d
feature_set_cache_miss: `for name in FEATURES`, FEATURES a set of feature names)."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.analyses.cache_words import INPUT_ORDER_EXPLANATION, ORDER_EXPLANATION
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


def _set_names(scope: ast.AST) -> set[str]:
    """The names a scope's statements bind to a set (`a, b = set(), set()` too)."""
    out = set()
    for node in ast.walk(scope):
        if not isinstance(node, ast.Assign):
            continue
        for t in node.targets:
            pairs = zip(t.elts, node.value.elts) if isinstance(t, ast.Tuple) and isinstance(
                node.value, ast.Tuple) and len(t.elts) == len(node.value.elts) else [
                (t, node.value)]
            out |= {n.id for n, v in pairs if isinstance(n, ast.Name) and _is_set(v)}
    return out


def ordering_set(ctx: Any, cid: str | None, changes: Any) -> tuple[UserFrame, str, str] | None:
    """(the line, the set as written, the explanation) behind a cache key that changed only in
    order: the compiled code's own loop over a set (the graph traced in another order), or,
    for the same inputs in another order, a loop over a set anywhere in a file of the
    program's compiled functions (an optimizer's parameter groups built from sets of names:
    probes46b adamw_decay_set_groups_cache); None otherwise."""
    if any(c.component == "gm" and "another order" in c.summary for c in changes):
        loop = unordered_loop(ctx, cid)
        return (*loop, ORDER_EXPLANATION) if loop else None
    moved = [c for c in changes if c.component.startswith("example_inputs")]
    if len(moved) < 2 or len(moved) != len(changes) or sorted(
            str(c.before) for c in moved) != sorted(str(c.after) for c in moved):
        return None  # not the same inputs in another order
    files = {path: tree for _, tree, path in compiled_defs(ctx)}  # the program's files: the
    for path, tree in files.items():  # compile may be of library code (the optimizer's step)
        for scope in (tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))):
            found = _set_loop(ctx, scope, path, _set_names(scope))
            if found is not None:
                return (*found, INPUT_ORDER_EXPLANATION)
    return None


def _set_loop(ctx: Any, scope: ast.AST, path: Any, names: set[str],
              attrs: frozenset[str] | set[str] = frozenset()) -> tuple[UserFrame, str] | None:
    """(the line, the iterable as written) of the first `for` statement or comprehension in
    `scope` over a set: one made in place, a name in `names`, or `self.X` for X in `attrs`."""
    for node in ast.walk(scope):
        target = node.iter if isinstance(node, (ast.For, ast.comprehension)) else None
        if isinstance(target, ast.Name) and target.id in names or _is_set(target) or (
                isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "self" and target.attr in attrs):
            line = getattr(node, "lineno", None) or getattr(target, "lineno", None)
            return ctx.frame(path, line, evidence="source"), ast.unparse(target)
    return None


def unordered_loop(ctx: Any, cid: str | None = None) -> tuple[UserFrame, str] | None:
    """(the `for` line, the set as written) of the first loop of the compiled function (the
    compile `cid`'s, when given) over a name the module or the function binds to a set, or
    over a set made in place; None when none."""
    for fn, tree, path in compiled_defs(ctx, None if cid is None else [cid]):
        sets = {t.id for scope in (tree.body, fn.body) for node in scope
                if isinstance(node, ast.Assign) and _is_set(node.value)
                for t in node.targets if isinstance(t, ast.Name)}
        # `self.active = ACTIVE` (a module's set) or `= set(...)` anywhere in the file, then
        # `for name in self.active` (probes47a ctr_feature_set_cache_miss)
        attrs = {t.attr for node in ast.walk(tree) if isinstance(node, ast.Assign) and (
            _is_set(node.value) or isinstance(node.value, ast.Name) and node.value.id in sets)
            for t in node.targets if isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name) and t.value.id == "self"}
        found = _set_loop(ctx, fn, path, sets, attrs)
        if found is not None:
            return found
    return None
