"""A context manager used as a decorator (contextlib.ContextDecorator: `@torch._dynamo.config.
patch(...)` on a function torch.compile compiles) breaks the graph in contextlib's wrapper
`inner` (`with self._recreate_cm():`), which is not the user's code: the line to change is the
decorator's (probes41d config_patch_decorated_step, pytorch#150586: the break was put at the
compiled call with a fix for library code).

Found in the program's kept source: the decorator line that makes the context manager torch
names (`Dynamo does not know how to enter a `ConfigPatch` context manager`)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.locate import source_line

# torch's class of the context manager -> the decorator that makes it, as code spells it
DECORATORS = {"ConfigPatch": r"^\s*@\s*[\w.]*config\.patch\b"}
_ENTER = re.compile(r"enter a `(\w+)` context manager")
# where contextlib's ContextDecorator calls the function it decorates
_WRAPPER = ("contextlib.py", "inner")

CONFIG_PATCH_FIX = (
    "Set the config outside the compiled code instead of decorating the function with "
    "`config.patch(...)`: Dynamo cannot enter the patch's context manager, so the decorator's "
    "wrapper runs in eager around the compiled function. Set it once before the first call "
    "({statement}), or patch around the call: `with {module}.patch(...): out = compiled(x)`. "
    "Dynamo and Inductor read their config when they compile, at the first call.")
# `@torch._dynamo.config.patch(capture_scalar_outputs=True)`: the module and its settings
_PATCH = re.compile(r"@\s*(?P<module>[\w.]*config)\.patch\((?P<args>.*)\)")


def config_patch_fix(line: str | None) -> str:
    """CONFIG_PATCH_FIX with the decorator's own settings as assignments."""
    m = _PATCH.search(line or "")
    module = m.group("module") if m else "torch._dynamo.config"
    pairs = re.findall(r"(\w+)\s*=\s*([^,]+)", m.group("args")) if m else []
    statement = "; ".join(f"`{module}.{k} = {v.strip()}`" for k, v in pairs) or \
        f"`{module}.NAME = VALUE` for each setting the decorator names"
    return CONFIG_PATCH_FIX.format(statement=statement, module=module)


def context_decorator(lib_frame: Any, explanation: str | None) -> str | None:
    """The context manager's class where the break is in ContextDecorator's wrapper."""
    lib = lib_frame if isinstance(lib_frame, dict) else {}
    where = str(lib.get("filename") or "").replace("\\", "/")
    if not where.endswith("/" + _WRAPPER[0]) or lib.get("name") != _WRAPPER[1]:
        return None
    m = _ENTER.search(explanation or "")
    return m.group(1) if m else None


def decorator_line(ctx: Any, cid: str | None, row: dict[str, Any]) -> UserFrame | None:
    """The decorator line of the context manager a break in ContextDecorator's wrapper could
    not enter; None where the break is elsewhere or the source shows no such decorator."""
    cls = context_decorator(row.get("lib_frame"), row.get("explanation"))
    if cls is None:
        return None
    pattern = DECORATORS.get(cls) or rf"^\s*@\s*[\w.]*\b{re.escape(cls)}\b"
    return source_line(ctx, cid, re.compile(pattern))
