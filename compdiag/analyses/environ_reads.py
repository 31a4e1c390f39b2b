"""Where compiled code reads an environment variable, from the program's stored source: the
compiled functions' bodies and the functions and methods of the same file they call by name
(`helper()`, `self.helper()`), a few calls deep. Dynamo turns such a read into a constant of
the graph and does not guard a variable that was unset then (capture/environ_sets.py), so the
line that reads it is the one to change when the program sets the variable after the
compile."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.analyses.compiled_source import node_frame, traced_nodes

_DEPTH = 3  # calls followed from a compiled function


def environ_read(ctx: Any, key: str) -> dict[str, Any] | None:
    """{filename, lineno, line} of the first read of the environment variable `key` in code a
    compile of the run traced (as far as its source says), else None."""
    for sub, path in traced_nodes(ctx, depth=_DEPTH):
        if _reads(sub, key):
            return node_frame(ctx, sub, path)
    return None


def _reads(node: ast.AST, key: str) -> bool:
    """`os.environ.get(key...)`, `os.environ[key]`, `os.getenv(key...)`, `key in os.environ`
    (and the same through `environ`/`getenv` imported by name)."""
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        return bool(node.args) and _is(node.args[0], key) and (
            name.endswith(("environ.get", "getenv")) or name in ("getenv",))
    if isinstance(node, ast.Subscript):
        return _dotted(node.value).endswith("environ") and _is(node.slice, key)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
            isinstance(node.ops[0], (ast.In, ast.NotIn)):
        return _is(node.left, key) and _dotted(node.comparators[0]).endswith("environ")
    return False


def _is(node: ast.AST, key: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == key


def _dotted(node: ast.AST) -> str:
    """`os.environ.get` for the expression os.environ.get; "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])
