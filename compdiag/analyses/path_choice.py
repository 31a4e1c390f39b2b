"""The test that chose the path a trace took and Python did not (issue 29 §1: the line the
user must change). The whole-function check's `traced_other_path` verdict names a line the
compiled graph computes that eager never ran on the same call (capture/forked_effects.py's
unrun_node); the line to change is the one above it that decided whether it runs: the `if`
or `while` whose branch holds it, a loop's `for`, or, where an earlier statement of its block
leaves the block on one path (a `try` whose handler returns, an `if` that returns), that
statement's test: for a `try`, the last line of its body eager ran, the one that raised there
and not while Dynamo traced it (pytorch/pytorch#198197: `getattr` on a builtin type).

Read from the program's stored source and the user lines eager ran on that call (the check's
detail), never from torch's text."""

from __future__ import annotations

import ast
from typing import Any, Iterable

_EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def deciding_line(text: str, unrun: int, ran: Iterable[int]) -> int | None:
    """The line of `text` whose test decided whether line `unrun` runs; None when no
    statement above it in its function decides it (or the source does not parse)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    ran = set(ran)
    chain = _chain(tree, unrun)
    # (each statement with its parent, innermost first; `field`: the parent's field that
    # holds it, `body`, `orelse`, `handlers`, ...)
    for (parent, _), (node, field) in zip(reversed(chain[:-1]), reversed(chain[1:])):
        body = getattr(parent, field, None) if field else None
        if isinstance(body, list) and node in body:
            for before in reversed(body[:body.index(node)]):
                if _exits(before):
                    return _test_line(before, ran)
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return None
        if isinstance(parent, (ast.If, ast.While)):
            return parent.test.lineno
        if isinstance(parent, (ast.For, ast.AsyncFor)):
            return parent.lineno
        if isinstance(parent, ast.ExceptHandler) or (isinstance(parent, ast.Try)
                                                      and field == "orelse"):
            owner = _try_of(chain, parent)
            if owner is not None:
                return _raised(owner, ran)
    return None


def _chain(tree: ast.AST, line: int) -> list[tuple[ast.AST, str | None]]:
    """[(node, the field of its parent that holds it)] from the module down to the innermost
    statement at `line`."""
    out: list[tuple[ast.AST, str | None]] = [(tree, None)]
    node = tree
    while True:
        inner = None
        for name, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, (ast.stmt, ast.ExceptHandler)) and \
                        child.lineno <= line <= (child.end_lineno or child.lineno):
                    inner = (child, name)
                    break
            if inner:
                break
        if inner is None:
            return out
        out.append(inner)
        node = inner[0]


def _exits(stmt: ast.AST) -> bool:
    """Whether a compound statement leaves its block on some path (a return, raise, break or
    continue inside it, not inside a nested function)."""
    if not isinstance(stmt, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
        return False
    todo = list(ast.iter_child_nodes(stmt))
    while todo:
        node = todo.pop()
        if isinstance(node, _EXITS):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _test_line(stmt: ast.AST, ran: set[int]) -> int:
    if isinstance(stmt, ast.Try):
        return _raised(stmt, ran)
    if isinstance(stmt, (ast.If, ast.While)):
        return stmt.test.lineno
    return stmt.lineno


def _raised(stmt: ast.Try, ran: set[int]) -> int:
    """The last line of a try's body that eager ran (where it raised), else its first."""
    first = stmt.body[0].lineno
    last = stmt.body[-1].end_lineno or stmt.body[-1].lineno
    inside = [n for n in ran if first <= n <= last]
    return max(inside) if inside else first


def _try_of(chain: list[tuple[ast.AST, str | None]], node: ast.AST) -> ast.Try | None:
    """The try statement a handler (or the try itself) belongs to, from the chain."""
    if isinstance(node, ast.Try):
        return node
    nodes = [n for n, _ in chain]
    at = nodes.index(node) if node in nodes else -1
    return nodes[at - 1] if at > 0 and isinstance(nodes[at - 1], ast.Try) else None


def path_choice(ctx: Any, detail: dict[str, Any]) -> Any:
    """The UserFrame (evidence `source`) of the test that chose the path of a
    `traced_other_path` verdict's detail, or None."""
    unrun = detail.get("unrun") or {}
    path, lineno = ctx.resolve(unrun.get("filename")), unrun.get("lineno")
    text = ctx.source_text(path) if path and lineno else None
    found = deciding_line(text, lineno, detail.get("ran") or ()) if text else None
    return ctx.frame(path, found, evidence="source") if found else None
