"""The program's own exception handler around a line: an enclosing `try` whose `except` clause
catches a given exception type (issue 29 §3).

Eager Python runs a `try` body op by op, and an op that raises lands in the `except` clause
that catches it. Dynamo does not trace that: an exception raised while it (or AOTAutograd)
runs the ops on fake tensors ends the compile, so the program fails where eager took the
handler (pytorch/pytorch#148475, #175608, #184364). Whether such a handler is there is a
static fact of the user's source, read from the text the run kept (RunContext.source_text),
never from torch's words."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Handler:
    """The `except` clause (its line and its text, `except RuntimeError`) of the `try` at
    `try_lineno` whose body holds the line."""

    try_lineno: int
    lineno: int
    clause: str
    caught: str  # the class named in the clause that catches the type ("" for a bare except)


def enclosing_handler(source: str | None, lineno: int | None,
                      exc_classes: list[str] | tuple[str, ...]) -> Handler | None:
    """The innermost `try` whose body holds `lineno` and one of whose handlers catches an
    exception of the classes `exc_classes` (the raised type's name and its bases' names, most
    derived first: a clause naming any of them, by its last dotted part, catches it; a bare
    `except:` catches anything). None when the source is not kept, does not parse, or no such
    handler encloses the line."""
    if not source or not lineno or not exc_classes:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    names = set(exc_classes)
    found: list[tuple[int, Handler]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))) or not node.body:
            continue
        start, end = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
        if not start <= lineno <= end:
            continue
        for handler in node.handlers:
            caught = _catches(handler.type, names)
            if caught is None:
                continue
            clause = ast.get_source_segment(source, handler) or "except"
            found.append((start, Handler(node.lineno, handler.lineno,
                                         clause.splitlines()[0].rstrip(":").strip(), caught)))
            break
    if not found:
        return None
    return max(found, key=lambda f: f[0])[1]  # the innermost: the latest-starting body


def _catches(spec: ast.expr | None, names: set[str]) -> str | None:
    """The class a clause's type expression names that is one of `names` ("" for a bare
    except), or None."""
    if spec is None:
        return ""
    for expr in (spec.elts if isinstance(spec, ast.Tuple) else [spec]):
        name = (expr.attr if isinstance(expr, ast.Attribute) else
                expr.id if isinstance(expr, ast.Name) else None)
        if name in names:
            return name
    return None
