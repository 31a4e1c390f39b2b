"""Compile settings a program changes after torch.compile compiled (issue 29 §4: where bugs
hide). Inductor and AOTAutograd read their config (`torch._inductor.config`,
`torch._functorch.config`) when they compile a graph, never when compiled code runs, and
Dynamo does not guard on it: `torch._inductor.config.fallback_random = True` set after the
first compiled call changes nothing in the graphs compiled before it, with no recompile and no
warning (checked on torch 2.13: a compiled dropout then still differs from eager's under the
same seed).

Capture wraps ConfigModule's `__setattr__` (torch/utils/_config_module.py: every config
module's class inherits it) and keeps, for a set made by the user's own code (a plain
assignment, or `with config.patch(...)` on the user's line) of one of MODULES after a graph
was compiled, the module, the key, the value's repr and the user's line: a `config_set`
record. Whether any compile came after it is the analysis' to read. torch's own sets (its
patches while it compiles) come from torch's frames and are not kept. A torch without the
class: nothing is hooked.

The same for a few process-wide setters whose value a graph AOTAutograd traced bakes in and no
guard compares (SETTERS: the default autocast dtype, the SDPA backends): the call, made by the
user's code after a compile, is a `setting_call` record (set14/gpu's
autocast_default_dtype_stale, PR pytorch#191110's review: the compiled function kept bfloat16
after `torch.set_autocast_dtype("cuda", torch.float16)`)."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

CONFIG_SET = "config_set"  # the record's kind
# The config modules read only when a graph compiles (Dynamo's own config is left out: some of
# its settings are read as compiled code runs, e.g. `disable`, `suppress_errors`).
MODULES = ("torch._inductor.config", "torch._functorch.config")

_CONFIG_FILE = "torch/utils/_config_module.py"
SETTING_CALL = "setting_call"  # the record's kind for a setter call
# torch.compiler.set_stance, kept whenever the user's code calls it (a `stance_set` record):
# a stance decides whether torch.compile compiles at all (analyses/diagnoses/stance.py)
STANCE, STANCE_SET = "torch.compiler.set_stance", "stance_set"
# torch._dynamo.allow_in_graph (torch.compiler.allow_in_graph calls it), kept whenever the
# user's code marks a function with it (an `allow_in_graph` record: the function, where it is
# defined, the marking line): Dynamo then puts the call in the graph untraced, and a function
# with a Python side effect or a `.item()` breaks the graph at its call and is traced again as
# a frame of its own (analyses/diagnoses/allow_in_graph.py).
ALLOW, ALLOW_IN_GRAPH = "torch._dynamo.allow_in_graph", "allow_in_graph"
# the marking's caller past torch.compiler's wrapper of it
_ALLOW_WRAPPERS = ("torch/compiler/__init__.py",)
# torch.compile and nn.Module.compile, kept whenever the user's code calls them (a
# `compile_call` record: what was compiled, the line): a run that compiled nothing is told
# why at that line (analyses/uncompiled.py)
COMPILE_CALL = "compile_call"
# Process-wide setters whose value a compiled graph bakes in when it traces and Dynamo's guards
# never compare: the default autocast dtype (GlobalStateGuard compares a device's autocast
# dtype only where autocast is on), the SDPA backends (the kernel is chosen at trace time).
SETTERS = ("torch.set_autocast_dtype", "torch.backends.cuda.enable_flash_sdp",
           "torch.backends.cuda.enable_mem_efficient_sdp", "torch.backends.cuda.enable_math_sdp",
           "torch.backends.cuda.enable_cudnn_sdp")


def install(capture: Any, graphs: Callable[[], int],
            is_user_file: Callable[[str], bool]) -> None:
    """`graphs()`: the number of graphs compiled so far in this process."""
    from torch.utils import _config_module

    cls = getattr(_config_module, "ConfigModule", None)
    original = getattr(cls, "__setattr__", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    def __setattr__(self: Any, name: str, value: object) -> None:
        original(self, name, value)
        try:  # fail open: the setting is made; bookkeeping never reaches the program
            module = getattr(self, "__name__", None)
            if (module in MODULES and not name.startswith("_") and not capture.paused_depth
                    and graphs() > 0):
                frame = user_frame(is_user_file)
                if frame is not None:
                    capture.guarded("config set", _record, capture, module, name, value, frame)
        except Exception:  # noqa: BLE001, S110
            pass

    __setattr__._compdiag = True  # type: ignore[attr-defined]
    cls.__setattr__ = __setattr__
    for dotted in SETTERS:
        _wrap_setter(capture, dotted, graphs, is_user_file)
    _wrap_setter(capture, STANCE, graphs, is_user_file, kind=STANCE_SET, always=True)
    _wrap_allow_in_graph(capture, is_user_file)
    _wrap_setter(capture, "torch.compile", graphs, is_user_file, kind=COMPILE_CALL, always=True)
    _wrap_module_compile(capture, is_user_file)


def _wrap_module_compile(capture: Any, is_user_file: Callable[[str], bool]) -> None:
    """Replace nn.Module.compile by one that compiles, then keeps the user's call (the module's
    class, the line) as a `compile_call` record: it compiles only calls of the module itself
    (its `_call_impl`), which a program calling other methods never makes."""
    import functools

    import torch.nn as nn

    original = getattr(nn.Module, "compile", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    @functools.wraps(original)
    def compile(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, *args, **kwargs)
        try:  # fail open
            frame = user_frame(is_user_file)
            if frame is not None and not capture.paused_depth:
                capture.guarded("compile call", capture.ing.event, COMPILE_CALL, None,
                                {"module": "torch.nn.Module", "key": "compile",
                                 "value": type(self).__qualname__, "call": frame}, None)
        except Exception:  # noqa: BLE001, S110
            pass
        return out

    compile._compdiag = True  # type: ignore[attr-defined]
    nn.Module.compile = compile


def _wrap_allow_in_graph(capture: Any, is_user_file: Callable[[str], bool]) -> None:
    """Replace torch._dynamo.allow_in_graph by one that marks, then keeps the user's marking
    of a function of theirs (its name, file, first and last line, the marking line)."""
    import functools

    import torch._dynamo as dynamo

    original = getattr(dynamo, "allow_in_graph", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    @functools.wraps(original)
    def allow_in_graph(fn: Any) -> Any:
        out = original(fn)
        try:  # fail open
            for one in fn if isinstance(fn, (list, tuple)) else (fn,):
                code = getattr(one, "__code__", None)
                if code is None or not is_user_file(code.co_filename):
                    continue
                lines = [n for _, _, n in code.co_lines() if n is not None]
                frame = user_frame(is_user_file, skip=_ALLOW_WRAPPERS)
                capture.guarded("allow_in_graph", capture.ing.event, ALLOW_IN_GRAPH, None,
                                {"function": getattr(one, "__qualname__", code.co_name),
                                 "name": code.co_name, "filename": code.co_filename,
                                 "first": code.co_firstlineno,
                                 "last": max(lines, default=code.co_firstlineno),
                                 "call": frame}, None)
        except Exception:  # noqa: BLE001, S110
            pass
        return out

    allow_in_graph._compdiag = True  # type: ignore[attr-defined]
    dynamo.allow_in_graph = allow_in_graph


def _wrap_setter(capture: Any, dotted: str, graphs: Callable[[], int],
                 is_user_file: Callable[[str], bool], kind: str = SETTING_CALL,
                 always: bool = False) -> None:
    """Replace the setter `dotted` by one that calls it, then keeps the user's call made after
    a compile (`always`: any call of the user's, as a `kind` record). torch's own calls
    (autocast's __enter__ sets the dtype) come from torch's frames and are not kept; a call
    Dynamo traces is the original's alone."""
    import functools
    import importlib

    from torch.compiler import is_compiling

    module_name, name = dotted.rsplit(".", 1)
    module = importlib.import_module(module_name)
    original = getattr(module, name, None)
    if original is None or getattr(original, "_compdiag", False):
        return

    @functools.wraps(original)
    def setter(*args: Any, **kwargs: Any) -> Any:
        if is_compiling():
            if dotted == "torch.compile" and len(args) == 1:
                # what Dynamo makes of torch.compile(fn) in code it traces: fn itself; the
                # original called here is not the object Dynamo's handler knows, and broke
                # the graph (probes48b: flex attention's create_block_mask(_compile=True))
                return args[0]
            return original(*args, **kwargs)
        out = original(*args, **kwargs)
        try:  # fail open
            if not capture.paused_depth and (always or graphs() > 0):
                frame = user_frame(is_user_file)
                if frame is not None:
                    said = ", ".join([repr(a) for a in args]
                                     + [f"{k}={v!r}" for k, v in kwargs.items()])
                    capture.guarded("setting call", capture.ing.event, kind, None,
                                    {"module": module_name, "key": name,
                                     "value": said[:200], "call": frame}, None)
        except Exception:  # noqa: BLE001, S110
            pass
        return out

    setter._compdiag = True  # type: ignore[attr-defined]
    setattr(module, name, setter)


def user_frame(is_user_file: Callable[[str], bool],
               skip: tuple[str, ...] = (_CONFIG_FILE,), depth: int = 2) -> dict[str, Any] | None:
    """The frame that called the set (the caller of this function's caller: a wrapper here;
    `depth` frames up from this function), past the config module's own (a sub-config's proxy,
    a patch's __enter__; `skip`: the files passed over), when it is the user's, as
    frame_facts; None for torch's own sets."""
    frame = sys._getframe(depth)
    while frame is not None and (frame.f_code.co_filename.replace(os.sep, "/")
                                 .endswith(skip)):
        frame = frame.f_back
    if frame is None or not is_user_file(frame.f_code.co_filename):
        return None
    return frame_facts(frame)


def frame_facts(frame: Any) -> dict[str, Any]:
    """A live frame as a record keeps it: file, line, function and the line's text."""
    import linecache

    code = frame.f_code
    return {"filename": code.co_filename, "lineno": frame.f_lineno, "name": code.co_name,
            "line": linecache.getline(code.co_filename, frame.f_lineno).strip() or None}


def _record(capture: Any, module: str, name: str, value: object,
            frame: dict[str, Any]) -> None:
    capture.ing.event(CONFIG_SET, None, {"module": module, "key": name,
                                         "value": repr(value)[:200], "call": frame}, None)
