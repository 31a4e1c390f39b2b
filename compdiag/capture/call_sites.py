"""The user's call that started a compile, read from the live Python stack when Dynamo logs
dynamo_start.

torch's own dynamo_start stack (torch 2.13) drops the innermost frames above the compiled one,
so the line that called the compiled function, and for a call at module level any user frame
at all, is missing from it. The handler of that very record runs inside Dynamo's callback,
below the user's call, so the frames are there to read. The class and id of each object
argument (a method's `self`, a module passed in) come along, from the `locals` Dynamo's
`_compile` was handed: two instances of one class sharing a `forward` recompile on each
other's attributes, and only the ids tell them apart from one instance that changed.

A library decorator's wrapper (transformers' `deprecate_kwarg` around a model's `forward`, so
`torch.compile(model.forward)` compiles `wrapped_func`) is not the name the user knows: the one
function the wrapper closes over is (`wraps`, its `__qualname__`)."""

from __future__ import annotations

import sys
from types import CodeType, FrameType, FunctionType
from typing import Any

from compdiag.formats.user_code import is_user_file

MAX_FRAMES = 12  # the innermost user frames kept: the call and the loop around it
MAX_OBJECTS = 8
_PLAIN = (int, float, complex, str, bytes, bool, type(None), list, tuple, dict, set,
          frozenset, type)


def call_record() -> dict[str, Any] | None:
    """{frames (outermost first), objects: {local: [class, id, is a module]}} of the compile
    starting now."""
    frame: FrameType | None = sys._getframe(1)
    local: dict[str, Any] | None = None
    compiled: Any = None
    frames: list[dict[str, Any]] = []
    while frame is not None:
        code = frame.f_code
        if local is None and code.co_name == "_compile" and \
                code.co_filename.endswith("convert_frame.py"):
            value = frame.f_locals.get("locals")
            local = value if isinstance(value, dict) else None
            compiled = frame.f_locals.get("code")
        if is_user_file(code.co_filename):
            frames.append({"filename": code.co_filename, "lineno": frame.f_lineno,
                           "name": code.co_name})
            if len(frames) >= MAX_FRAMES:
                break
        frame = frame.f_back
    if not frames:
        return None
    frames.reverse()
    record: dict[str, Any] = {"frames": frames, "objects": _objects(local or {})}
    wraps = _wrapped(compiled, local or {})
    if wraps:
        record["wraps"] = wraps
    return record


def _wrapped(code: Any, local: dict[str, Any]) -> str | None:
    """The qualified name of the one function a library wrapper being compiled closes over
    (a decorator's `func`), None for user code or a wrapper of none or several."""
    if not isinstance(code, CodeType) or not code.co_freevars or \
            is_user_file(code.co_filename):
        return None
    found = [v for n in code.co_freevars
             if isinstance(v := local.get(n), FunctionType) and v.__code__ is not code]
    if len(found) != 1:
        return None
    name = getattr(found[0], "__qualname__", None)
    return name if isinstance(name, str) and name else None


def _objects(local: dict[str, Any]) -> dict[str, list[Any]]:
    """The frame's arguments that are objects of some class (not tensors, numbers, strings,
    containers, functions or modules): their class and id."""
    import torch

    out: dict[str, list[Any]] = {}
    for name, value in local.items():
        if len(out) >= MAX_OBJECTS:
            break
        if isinstance(value, (_PLAIN, torch.Tensor)) or callable(value) and not \
                isinstance(value, torch.nn.Module):
            continue
        cls = type(value)
        # whether it is a module: a long-lived instance whose attributes configure it, as
        # against a plain object (a dataclass of settings) that may be built anew every call
        out[name] = [f"{cls.__module__}.{cls.__qualname__}", id(value),
                     isinstance(value, torch.nn.Module)]
    return out
