"""A `torch.compile` inside code another `torch.compile` traces (issue 29 §1: the line to change).

Dynamo traces through a function that is itself decorated with `@torch.compile`, and the inner
wrapper is not what it expects there: on torch 2.13 an inner `@torch.compile(fullgraph=True)`
above `@torch.no_grad()` on a method called from a compiled model's forward makes Dynamo fail
on its own wrapper ("'CatchErrorsWrapper' object has no attribute '__closure__'", probes47b
byol_target_compiled_method: said as torch's internal error at the outer call, with fixes
that disable the outer forward, which raised again). One compile of the region is what the
program wants: the outer one already compiles the method. Read from the stored source: the
functions the failed compile traced, as far as compiled_source follows them."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.analyses.compiled_source import compiled_defs, node_frame, traced_nodes

CLAUSE = " (it traces `{name}`, itself compiled by `{decorator}` at line {lineno})"
EXPLANATION = ("The function the compile traced calls {name}(), which line {lineno} compiles on "
               "its own (`{decorator}`): Dynamo traces into the inner compiled function and "
               "fails on its wrapper. The outer compile already compiles {name}() as part of "
               "its graph.")
FIX = ("Remove `{decorator}` at line {lineno}: the compile around it traces {name}() anyway "
       "(to compile {name}() alone where it is called from eager code, wrap that call site, "
       "`torch.compile(obj.{name})`, not the method's definition).")


def _compiles(dec: ast.expr) -> bool:
    """`@torch.compile`, `@torch.compile(...)`, `@compile(...)` after `from torch import
    compile`."""
    text = ast.unparse(dec.func if isinstance(dec, ast.Call) else dec)
    return text in ("torch.compile", "compile")


def nested_compile(ctx: Any, cid: str | None) -> dict[str, Any] | None:
    """{frame, clause, explanation, fix} where the compile `cid` traced a function that is
    itself decorated with torch.compile; None otherwise."""
    roots = {(path, fn.lineno) for fn, _, path in compiled_defs(ctx, [cid])}
    for node, path in traced_nodes(ctx, [cid]):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or (
                path, node.lineno) in roots:  # the compiled function's own decorator
            continue
        dec = next((d for d in node.decorator_list if _compiles(d)), None)
        if dec is None:
            continue
        frame = node_frame(ctx, dec, path)
        words = dict(name=node.name, decorator=f"@{ast.unparse(dec)}", lineno=frame["lineno"])
        return {"frame": ctx.frame(path, frame["lineno"], frame["line"], "source"),
                "clause": CLAUSE.format(**words), "explanation": EXPLANATION.format(**words),
                "fix": FIX.format(**words)}
    return None
