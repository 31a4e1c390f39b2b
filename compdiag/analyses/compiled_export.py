"""An exporter given torch.compile's wrapper instead of the model (issue 29 §2: the cause
above its consequence).

`model = torch.compile(model)` rebinds the name to an OptimizedModule that wraps the module;
`torch.jit.script(model)`, `torch.jit.trace(model, x)` or `torch.export.export(model, ...)`
later read the wrapper: TorchScript fails on its Python annotations ("Unknown type annotation:
'Callable[..., Any]'", probes34b gru_export_script, said as the program's own error) and tracing
refuses a Dynamo-optimized function (probes34c tabular_torchscript_export, said as compiled
code failing, with a bisect). The exporter's line is where it failed; the cause is the line
that bound the name to torch.compile's result, read from capture's `compile_call` records."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.formats.code_text import callee, calls_in

# the exporters, as the line may spell them (`torch.jit.script`, `jit.trace`)
EXPORTERS = ("jit.script", "jit.trace", "jit.freeze", "jit.trace_module", "export.export",
             "onnx.export", "onnx.dynamo_export")
_BOUND = re.compile(r"^\s*(?P<name>[\w.]+)\s*=\s*(?:torch\.)?compile\(")
CLAUSE = ("{call}({name}) was given torch.compile's wrapper: `{bound}` (line {lineno}) made "
          "{name} an OptimizedModule")
EXPLANATION = ("torch.compile(module) returns an OptimizedModule, a wrapper around the module "
               "that runs it through Dynamo; exporters read that wrapper, not the model, and "
               "fail on it (TorchScript on its Python annotations, tracing on Dynamo's frame "
               "hook). Nothing compiled failed: the model itself exports.")
FIX = ("Export the module torch.compile wrapped: `{call}({name}._orig_mod, ...)`, or keep the "
       "model under its own name (`compiled = torch.compile(model)`, train with `compiled`) "
       "and export `model`.")


def wrapper_exported(ctx: Any, line: str | None) -> dict[str, Any] | None:
    """{call, name, bound, lineno} where `line` passes an exporter a name the program bound to
    torch.compile's result (`model = torch.compile(model)`); None otherwise."""
    target = None
    for node in calls_in(line):
        func = callee(node)
        if func.endswith(EXPORTERS) and node.args and isinstance(
                node.args[0], (ast.Name, ast.Attribute)):
            target = (func, ast.unparse(node.args[0]))
            break
    if target is None:
        return None
    for _, call in ctx.recorded_calls("compile_call"):
        m = _BOUND.match(call.get("line") or "")
        if m and m.group("name") == target[1]:
            return {"call": target[0], "name": target[1], "bound": call["line"].strip(),
                    "lineno": call.get("lineno")}
    return None


def export_words(found: dict[str, Any]) -> tuple[str, str, str]:
    """(the headline's clause, the explanation, the fix) of a wrapper_exported result."""
    return (CLAUSE.format(**found), EXPLANATION, FIX.format(**found))
