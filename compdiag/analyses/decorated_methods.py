"""A bound method of an object the compiled code built itself, decorated with a grad-mode
context manager (`@torch.no_grad()`, `@torch.inference_mode()`, `@torch.enable_grad()`):
Dynamo cannot rebuild the decorator's wrapper around a method of an object that exists only
inside its trace ("Unexpected type in sourceless builder (builtins.method)", GB0116), breaks
the graph there and may skip the frame (probes43h calib_nograd_helper_skip, pytorch#194763:
`norm = BatchStandardizer(); norm.stats(x)` inside forward; the fix, a
`torch.compiler.disable` wrapper, kept a break and never named the decorator)."""

from __future__ import annotations

import ast
import re

GRAD_DECORATORS = ("no_grad", "inference_mode", "enable_grad", "set_grad_enabled")
_CALLED = re.compile(r"calling `(?:[\w.]+\.)?(?P<method>\w+)\(")
_METHOD_CALL = re.compile(r"\w\.(?P<method>\w+)\(")
FIX = ("`{method}()` is decorated with `@torch.{deco}()` (line {lineno}) and called on an "
       "object made inside the compiled code: Dynamo cannot wrap a bound method of an object "
       "that exists only in its trace. Build the object once outside (in `__init__`, or "
       "before the compiled call, and pass it in), or write `with torch.{deco}():` inside "
       "`{method}()` instead of the decorator; either traces with no break.")


def decorated_method_fix(reason: str | None, line: str | None, source: str | None
                         ) -> str | None:
    """The fix for GB0116's "builtins.method" break when the method it calls (named in the
    reason, else the user's line's method call) is decorated with a grad-mode context manager
    in the program's source; None otherwise."""
    if "builtins.method" not in (reason or ""):
        return None
    m = _CALLED.search(reason or "") or _METHOD_CALL.search(line or "")
    if m is None or not source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == m.group("method"):
            for deco in node.decorator_list:
                spelt = ast.unparse(deco.func if isinstance(deco, ast.Call) else deco)
                name = spelt.rsplit(".", 1)[-1]
                if name in GRAD_DECORATORS:
                    return FIX.format(method=node.name, deco=name, lineno=deco.lineno)
    return None
