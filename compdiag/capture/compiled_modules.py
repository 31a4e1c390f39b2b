"""One wrapper of the module torch.compile returns for an nn.Module (OptimizedModule.__init__),
which capture's modules listen to: module_hooks.py (which modules were compiled when, for
hooks registered after) and ddp.py (`torch.compile(ddp)`'s line). One patch point, in a file
Dynamo skips as it skips torch's own (after_import.untraced): compiled autograd builds an
OptimizedModule in code Dynamo traces, and a traced wrapper would move that call's graph break
into compdiag's file."""

from __future__ import annotations

from typing import Any, Callable

from compdiag.capture.after_import import after_import, untraced

Listener = Callable[[Any, Any], None]  # (the compiled wrapper, the module it wraps)
_listeners: list[Listener] = []


def on_compiled_module(listener: Listener) -> None:
    """Call listener(wrapper, module) after each OptimizedModule is built (installs the
    wrapper once, when torch._dynamo.eval_frame is imported)."""
    _listeners.append(listener)
    after_import("torch._dynamo.eval_frame", _install)


def _install(eval_frame: Any) -> None:
    cls = getattr(eval_frame, "OptimizedModule", None)
    original = getattr(cls, "__init__", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    def __init__(self: Any, mod: Any, *args: Any, **kwargs: Any) -> None:
        original(self, mod, *args, **kwargs)
        for listener in list(_listeners):
            try:  # fail open: bookkeeping never reaches the program
                listener(self, mod)
            except Exception:  # noqa: BLE001, S112
                continue

    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    __init__._compdiag = True  # type: ignore[attr-defined]
    __init__.__doc__ = original.__doc__
    cls.__init__ = __init__
    untraced(__name__)
