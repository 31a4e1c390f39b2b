"""Attributes the program sets on a module after a graph was compiled (issue 29 §1: the line
the user must change). Dynamo guards on the Python attributes of a module it traced (a flag
such as `grad_checkpointing`, a submodule, a number); the program that changes one between
calls (`model.set_grad_checkpointing(True)`, `model.reset_classifier(3)`, `head.scale = s`)
makes the next call recompile, and torch's recompile reason names the attribute and the call
that failed, never the line that changed it (probes44b timm_vit_grad_ckpt_enabled_midrun,
timm_resnet_reset_classifier_after_compile: both shown at the compiled call).

Capture wraps `nn.Module.__setattr__` and keeps, once a graph was compiled, each set's module
class, attribute and the innermost user line on the stack (the line of the program's that
set it, or that called the library method that did): a `module_attr` record, once per
(class, attribute, line). A set Dynamo traces is the original's alone (the wrapper returns
at once while compiling). A torch without the method: nothing is wrapped."""

from __future__ import annotations

import sys
from typing import Any, Callable

MODULE_ATTR = "module_attr"  # the record's kind
_KEPT = 4096  # distinct (class, attribute, line) kept


def install(capture: Any, graphs: Callable[[], int],
            is_user_file: Callable[[str], bool]) -> None:
    """`graphs()`: the number of graphs compiled so far in this process."""
    import torch
    from torch.compiler import is_compiling

    original = torch.nn.Module.__setattr__
    if getattr(original, "_compdiag", False):
        return
    seen: set[tuple[str, str, str, int]] = set()

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if is_compiling():
            return original(self, name, value)
        original(self, name, value)
        try:  # fail open: the attribute is set; bookkeeping never reaches the program
            if capture.paused_depth or len(seen) >= _KEPT or graphs() <= 0:
                return
            frame = _setting_frame(sys._getframe(1), self, is_user_file,
                                   getattr(capture, "transformed_codes", ()))
            if frame is None:
                return
            key = (type(self).__qualname__, name, frame.f_code.co_filename, frame.f_lineno)
            if key in seen:
                return
            seen.add(key)
            from compdiag.capture.config_sets import frame_facts

            said = type(value).__name__ if isinstance(value, torch.nn.Module) else \
                repr(value)[:80] if isinstance(value, (bool, int, float, str, type(None))) \
                else type(value).__name__
            capture.guarded("module attribute", capture.ing.event, MODULE_ATTR, None,
                            {"module": key[0], "key": name, "value": said,
                             "call": frame_facts(frame)}, None)
        except Exception:  # noqa: BLE001, S110
            pass

    __setattr__._compdiag = True  # type: ignore[attr-defined]
    __setattr__.__wrapped__ = original  # type: ignore[attr-defined]
    torch.nn.Module.__setattr__ = __setattr__  # type: ignore[method-assign]


def _setting_frame(frame: Any, module: Any, is_user_file: Callable[[str], bool],
                   compiled: Any) -> Any:
    """The user frame a set is charged to: the innermost of the program's, past the module's
    own methods run in eager (`model.enable_norm()` sets `self.use_norm`: the line to change is
    the call, not the method's body); a compiled forward that writes its own attribute keeps
    its line (the write is the cause)."""
    first = None
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            first = first or frame
            if frame.f_locals.get("self") is not module or frame.f_code in compiled:
                return frame
        frame = frame.f_back
    return first
