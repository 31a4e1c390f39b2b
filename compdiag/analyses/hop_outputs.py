"""A torch.while_loop body that returns a value of another shape or dtype than the loop
carries: the statement that makes it.

torch.while_loop carries its values through the loop with fixed metadata; torch says
"Expected body_fn_output and carried_inputs to have same metadata but found: pair[1] differ
in 'shape: torch.Size([4]) vs torch.Size([3])'" at the call, naming neither the body nor the
statement (probes37d while_loop_grow_tokens: a decode loop whose body grew the carried
sequence with torch.cat, said at the while_loop call with the fix for a side effect in a
branch). The body and its return statement are read from the kept source: the call's second
argument, its def (or lambda), the returned tuple's element the pair's index names. (torch
2.13's cond merges its branches' outputs and scan words its check otherwise: not matched.)"""

from __future__ import annotations

import ast
import re
from typing import Any

MISMATCH = re.compile(r"Expected (\w+?)_output and (\w+) to have same metadata but found:"
                      r"\s*pair\[(\d+)\] differ in '([^']*)'")
# the body's argument position in the op's call
POSITION = {"while_loop": {"body_fn": 1}}
SIZE = re.compile(r"torch\.Size\((\[[^\]]*\])\)")
CLAUSE = ("the {fn} returns `{text}` (line {lineno}) as value {index}, {what}: a while_loop "
          "carries each value with the same shape and dtype from one iteration to the next")
FIX = ("Carry a buffer of the final size and a position instead of a value that grows: make it "
       "once (`torch.zeros(max_len, dtype=...)`), write each step at the position "
       "(`buf.index_copy(0, i.reshape(1), x)` or `torch.where` on a position mask) and return "
       "it with its shape unchanged; or run the loop in Python around a compiled step.")


def _what(said: str) -> str:
    """'shape: torch.Size([4]) vs torch.Size([3])' -> 'of shape [4] where it is [3]'."""
    sizes = SIZE.findall(said)
    if said.startswith("shape") and len(sizes) == 2:
        return f"of shape {sizes[0]} where it came in as {sizes[1]}"
    return f"which differs ({said})"


def _function(tree: ast.AST, arg: ast.expr, before: int) -> ast.AST | None:
    """The lambda given, or the nearest def of the name given at or before the call."""
    if isinstance(arg, ast.Lambda):
        return arg
    if not isinstance(arg, ast.Name):
        return None
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == arg.id and n.lineno <= before]
    return max(defs, key=lambda n: n.lineno) if defs else None


def _own_returns(fn: ast.AST) -> list[ast.Return]:
    """The function's own `return value` statements (not those of functions it defines)."""
    out, todo = [], list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return sorted(out, key=lambda n: n.lineno)


def _returned(fn: ast.AST, index: int) -> ast.expr | None:
    """The returned tuple's element `index`; None where torch's flattened index may count
    otherwise (an element that is itself a container or starred)."""
    if isinstance(fn, ast.Lambda):
        value = fn.body
    else:
        returns = _own_returns(fn)
        value = returns[-1].value if returns else None
    if isinstance(value, (ast.Tuple, ast.List)):
        if any(isinstance(e, (ast.Tuple, ast.List, ast.Dict, ast.Starred)) for e in value.elts):
            return None
        return value.elts[index] if index < len(value.elts) else None
    return value if index == 0 else None


def mismatched_output(ctx: Any, frame: Any, text: str) -> tuple[Any, str, str] | None:
    """(the returning statement's frame, the reason's clause, the fix) for a higher-order op
    whose function returned other metadata than torch expects; None otherwise."""
    m = MISMATCH.search(text or "")
    if m is None or not frame.filename or not frame.lineno:
        return None
    try:
        tree = ast.parse(ctx.source_text(frame.filename) or "")
    except (SyntaxError, ValueError):
        return None
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or call.lineno != frame.lineno:
            continue
        op = ast.unparse(call.func).rsplit(".", 1)[-1]
        position = POSITION.get(op, {}).get(m.group(1))
        if position is None or position >= len(call.args):
            continue
        fn = _function(tree, call.args[position], frame.lineno)
        value = _returned(fn, int(m.group(3))) if fn is not None else None
        if value is None:
            continue
        name = f"function {call.args[position].id}()" if isinstance(call.args[position], ast.Name) \
            else "lambda"
        clause = CLAUSE.format(fn=name, text=ast.unparse(value), lineno=value.lineno,
                               index=m.group(3), what=_what(m.group(4)))
        return ctx.frame(frame.filename, value.lineno, evidence="source"), clause, FIX
    return None
