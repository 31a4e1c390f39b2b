"""The compiled functions' definitions in the program's stored source: what the analyses that
read the program's own code (a check's causes, a value baked in, a traced scalar) start from."""

from __future__ import annotations

import ast
from typing import Any, Iterator


def compiled_functions(ctx: Any) -> Iterator[tuple[ast.FunctionDef, ast.Module]]:
    """(the compiled function's def node, its module's tree) of each compile of the run whose
    code is a user function in a stored source."""
    for fn, tree, _path in compiled_defs(ctx):
        yield fn, tree


def compiled_defs(ctx: Any, cids: Any = None
                  ) -> Iterator[tuple[ast.FunctionDef, ast.Module, Any]]:
    """compiled_functions' (def, tree) with the source's path; of the compiles `cids` only,
    when given."""
    seen = set()
    for cid in ctx.compiles if cids is None else cids:
        row = ctx.code_row(cid) or {}
        key = (row.get("filename"), row.get("co_name"))
        if key in seen or not row.get("co_name"):
            continue
        seen.add(key)
        text = ctx.source_text(ctx.resolve(row.get("filename")))
        if not text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        # the def of that name whose lines hold the code object's first line (a module may
        # define several `forward`s)
        first = row.get("lineno") or 0
        named = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                 and n.name == row["co_name"]]
        fn = next((n for n in named if min([n.lineno, *(d.lineno for d in n.decorator_list)])
                   <= first <= (n.end_lineno or n.lineno)), None if first else
                  next(iter(named), None))
        if fn is not None:
            yield fn, tree, ctx.resolve(row.get("filename"))


def traced_nodes(ctx: Any, cids: Any = None, depth: int = 3
                 ) -> Iterator[tuple[ast.AST, str]]:
    """(node, source path) of every AST node in the compiled functions' bodies (of `cids`
    only, when given) and in the functions and methods of the same file they call by name
    (`helper()`, `self.helper()`), `depth` calls deep: the code a compile traced, as far as
    the stored source says."""
    for fn, tree, path in compiled_defs(ctx, cids):
        defs = {n.name: n for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        todo, seen = [(fn, 0)], set()
        while todo:
            node, level = todo.pop(0)
            if id(node) in seen:
                continue
            seen.add(id(node))
            for sub in ast.walk(node):
                yield sub, path
                called = _callee(sub)
                if called in defs and level < depth:
                    todo.append((defs[called], level + 1))


def node_frame(ctx: Any, node: ast.AST, path: str) -> dict[str, Any]:
    """{filename, lineno, line} of an AST node of the stored source at `path`."""
    lines = ctx.source_lines(path) or []
    lineno = getattr(node, "lineno", 0)
    text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else None
    return {"filename": path, "lineno": lineno, "line": text}


def _callee(node: ast.AST) -> str | None:
    """The name a call calls: `helper` in `helper(x)` and in `self.helper(x)`."""
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and \
            node.func.value.id == "self":
        return node.func.attr
    return None


def named(node: ast.AST) -> str:
    """The last name of a decorator or callee: `assume_constant_result` in
    `@torch.compiler.assume_constant_result`, `f` in `f()`."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
