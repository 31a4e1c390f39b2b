"""Hooks a program adds to a module after torch.compile compiled it (issue 29 §4: where bugs
hide). Dynamo does not guard on a module's hooks that were empty when it traced the module
(`torch._dynamo.config.skip_nnmodule_hook_guards`, True by default: "if your model doesn't
[have hooks] and you add them, dynamo will not notice and will execute whichever version you
first compiled"). A forward hook registered after the first compiled call on a submodule (or,
for a torch.nn container compiled directly, on the module itself) then never runs in compiled
code: no recompile, no log line, and the activations it collects or the output it changes are
silently missing. Checked on torch 2.13: a hook on an inner ReLU added after one call never
ran; one removed later is noticed (a hook dict that was not empty is guarded).

The same for a module a compiled function reads as a global (pytorch#117265, #115750: a
backward hook on `layer` after `f` compiled it).

Capture wraps nn.Module's `register_*hook` methods and keeps, once a graph was compiled and
only where that kind of hook was empty before, the user's line that registered it, with the
module torch.compile wrapped (an OptimizedModule) when the hooked module is inside one that
compiled since the wrapping: a `module_hook` record. The analysis decides whether compiled
code held the module (the wrapper, or a compile guarding on the global the line names). Nothing else changes: the original method runs, with the same
arguments, and its handle is returned. A torch without these names: nothing is hooked."""

from __future__ import annotations

import sys
import weakref
from typing import Any, Callable

from compdiag.capture.compiled_modules import on_compiled_module
from compdiag.formats.user_code import is_user_file

MODULE_HOOK = "module_hook"  # the record's kind
# method -> the module's dict of hooks of that kind (empty: unguarded by Dynamo)
METHODS = {
    "register_forward_hook": "_forward_hooks",
    "register_forward_pre_hook": "_forward_pre_hooks",
    "register_full_backward_hook": "_backward_hooks",
    "register_full_backward_pre_hook": "_backward_pre_hooks",
    "register_backward_hook": "_backward_hooks",
}


# torch.nn.modules.module's global hooks (every module's call runs them) -> their dict:
# registered after a compile, when that dict was empty, compiled code never runs them either
# (probes30d layer_profiler_global_hook: a sparsity probe saw 0 of the model's ReLUs).
GLOBALS = {
    "register_module_forward_hook": "_global_forward_hooks",
    "register_module_forward_pre_hook": "_global_forward_pre_hooks",
    "register_module_full_backward_hook": "_global_backward_hooks",
    "register_module_full_backward_pre_hook": "_global_backward_pre_hooks",
}


def install(capture: Any, user_line: Callable[[], Any], graphs: Callable[[], int]) -> None:
    """`user_line()`: the innermost user frame of the live stack (the registering line);
    `graphs()`: the number of graphs compiled so far (graph_count.py)."""
    import torch
    from torch.compiler import is_compiling
    from torch._dynamo import config

    if getattr(torch.nn.Module.register_forward_hook, "_compdiag", False):
        return  # installed in this process already
    # each torch.compile(module) wrapper -> the number of graphs compiled when it was made
    wrappers: "weakref.WeakKeyDictionary[Any, int]" = weakref.WeakKeyDictionary()
    on_compiled_module(lambda wrapper, mod: wrappers.__setitem__(wrapper, graphs()))

    def compiled_around(module: Any) -> Any:
        """The compiled wrapper whose module holds `module`, where a graph was compiled since
        the wrapping; None otherwise (hooks on the wrapper itself run in eager)."""
        now = graphs()
        for wrapper, made_at in list(wrappers.items()):
            if now <= made_at:
                continue
            inner = getattr(wrapper, "_orig_mod", None)
            if inner is None or module is wrapper:
                continue
            if module is inner:
                # a user's class runs its own hooks before Dynamo's frame (eval_frame's
                # "Invoke hooks outside of dynamo"); a torch.nn module compiled directly is
                # traced from its __call__, hooks included
                if type(inner).__module__.startswith("torch.nn"):
                    return wrapper
                continue
            if any(m is module for m in inner.modules()):
                return wrapper
        return None

    kept = [0]

    def wrapped(original: Callable[..., Any], qualname: str,
                empty: Callable[[tuple[Any, ...]], bool],
                record: Callable[[tuple[Any, ...], Any], None],
                also: Callable[[tuple[Any, ...]], None] | None = None) -> Callable[..., Any]:
        return _wrapped(capture, original, qualname, empty, record, config, is_compiling,
                        graphs, also)

    for method, hooks in METHODS.items():
        original = getattr(torch.nn.Module, method, None)
        if original is None:
            continue
        setattr(torch.nn.Module, method, wrapped(
            original, f"Module.{method}",
            lambda args, hooks=hooks: not getattr(args[0], hooks, None),
            lambda args, caller, method=method: capture.guarded(
                "module hook", _record, capture, args[0], method, compiled_around, user_line,
                kept),
            (lambda args: capture.guarded("module hook", _record_on_wrapper, capture, args[0],
                                          user_line))
            if method == "register_full_backward_hook" else None))
    _install_globals(capture, wrappers, user_line, kept, graphs, wrapped)
    _install_requires_grad(capture, compiled_around, user_line, kept, graphs, is_compiling)


WRAPPER_HOOK = "wrapper_backward_hook"  # the record's kind


def _record_on_wrapper(capture: Any, module: Any, user_line: Callable[[], Any]) -> None:
    """A full backward hook registered on torch.compile's wrapper (an OptimizedModule) itself,
    compiled or not yet: the wrapper's `__setattr__` hands the hook's flag on to the module it
    wraps, so the wrapper's call finds no backward hooks and never runs it, while its forward
    hooks run (probes47c grad_spike_hook_on_wrapper, checked on torch 2.13: 0 of 12 calls
    measured, eager 12). Kept as a `wrapper_backward_hook` record with the registering line."""
    try:
        from torch._dynamo.eval_frame import OptimizedModule
    except ImportError:
        return
    if isinstance(module, OptimizedModule):
        capture.ing.event(WRAPPER_HOOK, None, {
            "method": "register_full_backward_hook",
            "compiled": type(getattr(module, "_orig_mod", module)).__name__,
            "call": user_line()}, None)


def _install_requires_grad(capture: Any, compiled_around: Callable[[Any], Any],
                           user_line: Callable[[], Any], kept: list[int],
                           graphs: Callable[[], int], is_compiling: Callable[[], bool]
                           ) -> None:
    """Wrap nn.Module.requires_grad_ (freezing, unfreezing): a call after a graph was compiled
    that changes some parameter's requires_grad is recorded as a `module_hook` record of
    method `requires_grad_`. torch 2.11 does not recompile for it (set31/gpu
    timm_vit_unfreeze_recompile, checked on the device: after `m[0].requires_grad_(True)` on a
    module compiled frozen, no recompile and `m[0].weight.grad` stays None, where eager
    computes it); torch 2.13 recompiles, and the analysis then says nothing (a compile came
    after it)."""
    import torch

    original = torch.nn.Module.requires_grad_

    def requires_grad_(self: Any, requires_grad: bool = True) -> Any:
        if is_compiling():
            return original(self, requires_grad)
        try:
            changes = graphs() > 0 and not capture.paused_depth and any(
                p.requires_grad != bool(requires_grad) for p in self.parameters())
        except Exception:  # noqa: BLE001
            changes = False
        out = original(self, requires_grad)
        if changes:
            capture.guarded("module hook", _record, capture, self, "requires_grad_",
                            compiled_around, user_line, kept)
        return out

    requires_grad_.__doc__ = original.__doc__
    requires_grad_.__wrapped__ = original  # type: ignore[attr-defined]
    requires_grad_._compdiag = True  # type: ignore[attr-defined]
    torch.nn.Module.requires_grad_ = requires_grad_  # type: ignore[method-assign]


def _wrapped(capture: Any, original: Callable[..., Any], qualname: str,
             empty: Callable[[tuple[Any, ...]], bool],
             record: Callable[[tuple[Any, ...], Any], None], config: Any,
             is_compiling: Callable[[], bool], graphs: Callable[[], int],
             also: Callable[[tuple[Any, ...]], None] | None = None) -> Callable[..., Any]:
    """`original` (a hook registration) with the same arguments and result; where the hooks
    of that kind were empty before (`empty(args)`: Dynamo does not guard them) and a graph was
    compiled already, `record(args, caller)`, the caller being the registering frame; `also`,
    called with the arguments at every registration outside a trace."""
    def register(*args: Any, **kwargs: Any) -> Any:
        if is_compiling():  # traced by Dynamo: exactly the original, nothing of ours
            return original(*args, **kwargs)
        try:
            unguarded = bool(empty(args)
                             and getattr(config, "skip_nnmodule_hook_guards", False))
        except Exception:  # noqa: BLE001
            unguarded = False
        handle = original(*args, **kwargs)
        if unguarded and not capture.paused_depth and graphs() > 0:
            record(args, sys._getframe(1))
        if also is not None:
            also(args)
        return handle

    register.__name__ = qualname.rsplit(".", 1)[-1]
    register.__qualname__ = qualname
    register.__doc__ = original.__doc__
    register.__wrapped__ = original  # type: ignore[attr-defined]
    register._compdiag = True  # type: ignore[attr-defined]
    return register


def _install_globals(capture: Any, wrappers: Any, user_line: Callable[[], Any],
                     kept: list[int], graphs: Callable[[], int], wrapped: Callable[..., Any]
                     ) -> None:
    """Wrap torch's global module hooks where torch.nn.modules.module and torch.nn.modules
    name them: a registration the program's own code makes after a compile, onto an empty
    dict, is recorded against the modules compiled since their wrapping (the first such
    wrapper's class). torch and libraries register global hooks inside a compiled call too
    (set23/gpu channels_last_warmup_recompile, on torch 2.11: a forward pre-hook said at the
    user's call line): not recorded."""
    import torch.nn.modules as modules
    from torch.nn.modules import module as module_py

    for method, hooks in GLOBALS.items():
        original = getattr(module_py, method, None)
        if original is None or getattr(original, "_compdiag", False):
            continue
        register = wrapped(
            original, method, lambda args, hooks=hooks: not getattr(module_py, hooks, None),
            lambda args, caller, method=method: capture.guarded(
                "module hook", _record_global, capture, wrappers, method, user_line, kept,
                graphs, caller.f_code.co_filename))
        setattr(module_py, method, register)
        if getattr(modules, method, None) is original:
            setattr(modules, method, register)


def _record_global(capture: Any, wrappers: Any, method: str, user_line: Callable[[], Any],
                   kept: list[int], graphs: Callable[[], int], caller: str) -> None:
    """Only where the registering frame (`caller`, its file) is the program's own code."""
    if not is_user_file(caller):
        return
    now = graphs()
    inner = next((getattr(w, "_orig_mod", None) for w, made in list(wrappers.items())
                  if now > made and getattr(w, "_orig_mod", None) is not None), None)
    if inner is None or kept[0] >= MAX_RECORDS:
        return  # no compiled module: a compiled function's modules are not known here
    kept[0] += 1
    capture.ing.event(MODULE_HOOK, None, {
        "method": method, "module": "every module", "path": None,
        "compiled": type(inner).__name__, "call": user_line()}, None)


MAX_RECORDS = 200  # a program registering hooks in a loop after compiling: the first ones


def _record(capture: Any, module: Any, method: str, compiled_around: Callable[[Any], Any],
            user_line: Callable[[], Any], kept: list[int]) -> None:
    """The registering line, and the compiled wrapper holding the module where there is one;
    without one the module may still be a global a compiled function reads (the analysis
    matches the line's receiver against the compiles' guards)."""
    if kept[0] >= MAX_RECORDS:
        return
    kept[0] += 1
    wrapper = compiled_around(module)
    inner = getattr(wrapper, "_orig_mod", None)
    path = next((name for name, m in inner.named_modules() if m is module), None) \
        if inner is not None else None
    capture.ing.event(MODULE_HOOK, None, {
        "method": method, "module": type(module).__name__, "path": path,
        "compiled": type(inner).__name__ if inner is not None else None,
        "call": user_line()}, None)
