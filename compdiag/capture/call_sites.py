"""The user's call that started a compile, read from the live Python stack when Dynamo logs
dynamo_start.

torch's own dynamo_start stack (torch 2.13) drops the innermost frames above the compiled one,
so the line that called the compiled function, and for a call at module level any user frame
at all, is missing from it. The handler of that very record runs inside Dynamo's callback,
below the user's call, so the frames are there to read. A compiled method's `self` (its class
and id) comes along, from the `locals` Dynamo's `_compile` was handed: two instances of one
class sharing a `forward` recompile on each other's attributes, and only the ids tell them
apart from one instance that changed."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from compdiag.formats.user_code import is_user_file

MAX_FRAMES = 12  # the innermost user frames kept: the call and the loop around it


def call_record(skip_self: bool = False) -> dict[str, Any] | None:
    """{frames (outermost first), self_type, self_id} of the compile starting now."""
    frame: FrameType | None = sys._getframe(1)
    self_obj: Any = None
    have_self = False
    frames: list[dict[str, Any]] = []
    while frame is not None:
        code = frame.f_code
        if not have_self and code.co_name == "_compile" and \
                code.co_filename.endswith("convert_frame.py"):
            local = frame.f_locals.get("locals")
            if isinstance(local, dict) and "self" in local:
                self_obj, have_self = local["self"], True
        if is_user_file(code.co_filename):
            frames.append({"filename": code.co_filename, "lineno": frame.f_lineno,
                           "name": code.co_name})
            if len(frames) >= MAX_FRAMES:
                break
        frame = frame.f_back
    if not frames:
        return None
    frames.reverse()
    out: dict[str, Any] = {"frames": frames, "self_type": None, "self_id": None}
    if have_self:
        cls = type(self_obj)
        out["self_type"] = f"{cls.__module__}.{cls.__qualname__}"
        out["self_id"] = id(self_obj)
    return out
