"""Python control flow on a scalar a compiled graph computes, decided while Dynamo traces
(issue 29 §4: where bugs hide). With `capture_scalar_outputs=True`, `v = loss.item()` stays in
the graph as a symbolic float, which the tracer's symbolic reasoning treats as a finite real:
`v != v` (the NaN test Python programs write) is False for any real, so Dynamo takes that branch
once, at trace time, and the compiled code never tests the value (pytorch/pytorch#198070: a
skip-the-NaN-batch step that writes NaN into the weights). Found from the program's stored
source and Dynamo's graph: an `.item()` assignment the graph holds (an `item` node at its line)
and, later in the same compiled function, a comparison of that name with itself."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.analyses.compiled_source import compiled_defs

# the comparisons that test a float for NaN by comparing it with itself
SELF_TESTS = (ast.NotEq, ast.Eq)


def folded_nan_tests(ctx: Any) -> list[dict[str, Any]]:
    """[{filename, lineno, name, op, tensor, item_line, fn}] for each self-comparison of a
    traced scalar (`tensor`: the expression `.item()` was called on)."""
    item_lines = {n.get("lineno") for cid in ctx.compiles
                  for n in ctx.r.dynamo_nodes(ctx.run_id, cid)
                  if str(n.get("node") or "").startswith("item") and n.get("lineno")}
    if not item_lines:
        return []
    out = []
    for fn, _tree, path in compiled_defs(ctx):
        traced: dict[str, int] = {}
        tensors: dict[str, str] = {}
        for node in ast.walk(fn):
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and node.lineno in item_lines
                    and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Attribute)
                    and node.value.func.attr == "item"):
                traced[node.targets[0].id] = node.lineno
                tensors[node.targets[0].id] = ast.unparse(node.value.func.value)
        for node in ast.walk(fn) if traced else ():
            if (isinstance(node, ast.Compare) and len(node.ops) == 1
                    and isinstance(node.ops[0], SELF_TESTS)
                    and isinstance(node.left, ast.Name) and node.left.id in traced
                    and isinstance(node.comparators[0], ast.Name)
                    and node.comparators[0].id == node.left.id
                    and node.lineno > traced[node.left.id]):
                name = node.left.id
                out.append({"filename": path, "lineno": node.lineno, "name": name,
                            "op": "!=" if isinstance(node.ops[0], ast.NotEq) else "==",
                            "tensor": tensors[name], "item_line": traced[name],
                            "fn": fn.name})
    return out


# The accuracy kind's words for such a test (analyses/diagnoses/accuracy.py's folded_nan).
FOLDED_NAN = ("the NaN test `{name} {op} {name}` at line {lineno} is decided while tracing: "
              "`{name}` (line {item_line}, `.item()` kept in the graph) is a symbolic float "
              "Dynamo takes as never NaN, so the compiled {fn}() never takes that branch")
FOLDED_NAN_EXPLANATION = (
    "With capture_scalar_outputs=True, `.item()` stays in the graph as a symbolic float, and "
    "Python control flow on it is decided by the tracer's symbolic reasoning, which treats the "
    "value as a finite real number: comparing it with itself is settled at trace time, the "
    "graph holds no test, and a NaN (or inf) the data brings at run time goes down the other "
    "path, where eager takes the branch.")
FOLDED_NAN_FIX = (
    "Test the tensor, in the graph: `if torch.isnan({tensor}):` (a data-dependent branch: a "
    "graph break, then correct), or keep it branch-free with `torch.where(torch.isnan("
    "{tensor}), <if NaN>, <otherwise>)`; or leave `.item()` out of the graph "
    "(capture_scalar_outputs off: a graph break at `.item()`, then Python tests a real "
    "float).")
