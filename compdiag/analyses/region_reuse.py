"""The argument that keeps a nested compile region from being reused (issue 29 §1: name what
the program passes).

A function under `torch.compiler.nested_compile_region` is traced once and its subgraph reused
while its guards hold; torch gives up after 8 entries ("invoke_subgraph: exceeded maximum
reuse entries (8) ... a guard keeps failing on every invocation"). The usual cause is an
argument that is a Python number computed per call (a per-layer scale `1.0 /
math.sqrt(2 * (i + 1))`), a constant to Dynamo: probes34c deepnorm_nested_region, said as
"an internal error of torch" with a disable fix that compiled none of the model. Read from
the program's source: the call at the failure's line, and the decorated function's parameters.
"""

from __future__ import annotations

import ast
from typing import Any

from compdiag.formats.code_text import calls_in

# torch's words for it (torch/_guards.py)
REUSE_LIMIT = "exceeded maximum reuse entries"
CLAUSE = (" ({param} (`{arg}`) is a Python number computed at each call: a constant to "
          "Dynamo, so each call needs a subgraph of its own)")
FIX = ("Pass {param} as a tensor (`torch.tensor({arg})`, or one buffer per layer indexed like "
       "the weights), so one subgraph serves every call of {fn}().")
# argument forms that are Python numbers computed at the call, not tensors or objects
_NUMBER = (ast.BinOp, ast.UnaryOp, ast.Constant)


def varying_number(ctx: Any, filename: str | None, line: str | None) -> dict[str, Any] | None:
    """{fn, param, arg} for the first argument of the call on `line` to a function of the
    program's that is a number computed there (arithmetic or a math call on it); None when the
    call or the function's parameters cannot be read."""
    for node in calls_in(line):
        if not isinstance(node.func, ast.Name):
            continue
        params = _params(ctx, filename, node.func.id)
        for k, arg in enumerate(node.args):
            if k < len(params) and _computed_number(arg):
                return {"fn": node.func.id, "param": params[k], "arg": ast.unparse(arg)}
    return None


def _computed_number(arg: ast.AST) -> bool:
    """Arithmetic on numbers (`1.0 / math.sqrt(2 * (i + 1))`), not a bare constant (the same
    at every call) or a tensor expression the source cannot tell from it."""
    if isinstance(arg, ast.Constant) or not isinstance(arg, _NUMBER):
        return False
    calls = [n for n in ast.walk(arg) if isinstance(n, ast.Call)]
    return all(isinstance(c.func, ast.Attribute) and ast.unparse(c.func.value) == "math"
               for c in calls)


def _params(ctx: Any, filename: str | None, name: str) -> list[str]:
    """The positional parameters of the program's top-level function `name`."""
    try:
        tree = ast.parse("\n".join(ctx.source_lines(filename) or []))
    except (SyntaxError, ValueError):
        return []
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    return [a.arg for a in fn.args.posonlyargs + fn.args.args] if fn else []
