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

import functools
import sys
from typing import Any, Callable

MODULE_ATTR = "module_attr"  # the record's kind
_KEPT = 4096  # distinct (class, attribute, line) kept


# What the wrapper reads, kept at module level and never in a closure: Dynamo traces
# `Module.__setattr__` when the compiled code builds a module (`nn.Linear(...)` inside a
# forward), binds every closure cell of the function it traces, and cannot build capture's own
# objects (probes44g protonet_head_reinit_in_forward broke at "Unexpected type in sourceless
# builder (compdiag.capture.hooks.Capture)" instead of torch's own break). While compiling the
# wrapper reads two module globals, a torch function and torch's original, and returns.
_ORIGINAL: Any = None
_IS_COMPILING: Any = None
_STATE: dict[str, Any] = {}


def install(capture: Any, graphs: Callable[[], int],
            is_user_file: Callable[[str], bool]) -> None:
    """`graphs()`: the number of graphs compiled so far in this process."""
    global _ORIGINAL, _IS_COMPILING
    import torch
    from torch.compiler import is_compiling

    if getattr(torch.nn.Module.__setattr__, "_compdiag", False):
        return
    _ORIGINAL, _IS_COMPILING = torch.nn.Module.__setattr__, is_compiling
    _STATE.update(capture=capture, graphs=graphs, is_user_file=is_user_file, seen=set())
    skip_in_dynamo(_setattr)
    _setattr._compdiag = True  # type: ignore[attr-defined]
    _setattr.__wrapped__ = _ORIGINAL  # type: ignore[attr-defined]
    torch.nn.Module.__setattr__ = _setattr  # type: ignore[method-assign]


def skip_in_dynamo(fn: Any) -> None:
    """Dynamo never compiles a frame of `fn`, nor of what it calls, as a frame of its own
    (torch's own `__setattr__` frames it never compiles either; probes44g: the wrapper's
    frames, run in eager after a graph break inside `nn.Linear.__init__`, were compiled and
    recompiled on the attribute's name). Inlined into a traced frame, it is traced as before.
    A torch without the API: nothing changes."""
    try:
        from torch._dynamo.eval_frame import set_code_exec_strategy
        from torch._dynamo.types import FrameAction, FrameExecStrategy

        set_code_exec_strategy(fn.__code__, FrameExecStrategy(FrameAction.SKIP,
                                                              FrameAction.SKIP))
    except Exception:  # noqa: BLE001, S110 - fail open
        pass


def _setattr(self: Any, name: str, value: Any) -> None:
    if _IS_COMPILING():
        return _ORIGINAL(self, name, value)
    _ORIGINAL(self, name, value)
    _record(self, name, value)


def _record(module: Any, name: str, value: Any) -> None:
    try:  # fail open: the attribute is set; bookkeeping never reaches the program
        import torch

        capture, seen = _STATE["capture"], _STATE["seen"]
        if capture.paused_depth or len(seen) >= _KEPT or _STATE["graphs"]() <= 0:
            return
        frame = _setting_frame(sys._getframe(2), module, _STATE["is_user_file"],
                               getattr(capture, "transformed_codes", ()))
        if frame is None:
            return
        key = (type(module).__qualname__, name, frame.f_code.co_filename, frame.f_lineno)
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


def _setting_frame(frame: Any, module: Any, is_user_file: Callable[[str], bool],
                   compiled: Any) -> Any:
    """The user frame a set is charged to: the innermost of the program's, past the methods of
    the module's class run in eager (`model.enable_norm()` sets `self.use_norm`: the line to change is
    the call, not the method's body); a compiled forward that writes its own attribute keeps
    its line (the write is the cause)."""
    first = None
    own = _method_codes(type(module))
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            first = first or frame
            if frame.f_code not in own or frame.f_code in compiled:
                return frame
        frame = frame.f_back
    return first


@functools.lru_cache(maxsize=256)
def _method_codes(cls: type) -> frozenset[Any]:
    """The code objects of the functions defined on `cls` and its bases (its methods)."""
    return frozenset(f.__code__ for klass in cls.__mro__ for f in vars(klass).values()
                     if hasattr(f, "__code__"))
