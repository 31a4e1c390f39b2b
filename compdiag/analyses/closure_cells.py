"""The name of a closure cell a guard checks (`cl.__closure__[1].cell_contents`).

torch names a captured variable by its position in the function's `__closure__`
(pytorch#172382); the user wrote a name. A function's `__closure__[i]` is the cell of its
code's `co_freevars[i]`, and CPython orders `co_freevars` by name (the compiler sorts the free
names, compile.c `dictbytype`), so the name is the i-th of the sorted free variables of the
function whose code the guard's line is in: the innermost `def` or `lambda` of the user's file
that encloses the line torch recorded for the guard (a stored frame; this reads the user's
source, never torch's text)."""

from __future__ import annotations

import ast
import re
import symtable

_CELL = re.compile(r"^(?P<owner>.+?)\.__closure__\[(?P<index>\d+)\]\.cell_contents$")


def closure_index(source: str | None) -> tuple[str, int] | None:
    """(the function's expression, the cell's index) of a guarded `F.__closure__[i]
    .cell_contents`, or None."""
    m = _CELL.match((source or "").strip())
    return (m.group("owner"), int(m.group("index"))) if m else None


def cell_name(text: str | None, lineno: int | None, index: int) -> str | None:
    """The name of cell `index` of the innermost function of the source `text` (a user file
    as the run kept it: Reader.source_lines) enclosing `lineno`, or None when the source does
    not say (not kept, unparsable, no such function, too few cells)."""
    if text is None or not lineno:
        return None
    try:
        tree = ast.parse(text)
        table = symtable.symtable(text, "<source>", "exec")
    except (SyntaxError, ValueError):
        return None
    best: ast.AST | None = None
    for node in ast.walk(tree):
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                and node.lineno <= lineno <= (node.end_lineno or node.lineno)
                and (best is None or node.lineno >= best.lineno)):
            best = node
    if best is None:
        return None
    name = "lambda" if isinstance(best, ast.Lambda) else best.name  # type: ignore[attr-defined]
    def_line = (best.decorator_list[0].lineno if getattr(best, "decorator_list", None)
                else best.lineno)
    for t in _tables(table):
        if t.get_type() == "function" and t.get_name() == name and \
                t.get_lineno() in (best.lineno, def_line):
            frees = sorted(t.get_frees())  # type: ignore[attr-defined]
            return frees[index] if index < len(frees) else None
    return None


def _tables(table: symtable.SymbolTable) -> list[symtable.SymbolTable]:
    out = [table]
    for child in table.get_children():
        out += _tables(child)
    return out
