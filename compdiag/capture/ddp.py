"""DDP under torch.compile, captured in the user's process: where the program wrapped its
model in DistributedDataParallel (a thin wrapper around DDP.__init__ records the caller's
line, the bucket cap and whether the module was compiled already; `torch.compile(ddp)` is
noted at its line too), and the buckets
DDPOptimizer made (the cap, each bucket's bytes), heard where it hands them to its logging.
The subgraphs themselves come from torch's structured trace (optimize_ddp_split_child,
ingest/ddp.py).

Not a handler on `torch._dynamo.backends.distributed`: that logger prints its INFO bucket
line through a stderr handler of its own, so turning it up would change the user's stderr.
Fail open: a fault here is a run warning."""

from __future__ import annotations

import json
import linecache
import sys
from types import FrameType
from typing import Any

from compdiag.capture.after_import import after_import
from compdiag.capture.compiled_modules import on_compiled_module
from compdiag.capture.compile_context import current_compile_id
from compdiag.formats.user_code import is_user_file


def install(capture: Any) -> None:
    after_import("torch.nn.parallel.distributed", lambda m: _wrap_init(capture, m))
    after_import("torch._dynamo.backends.distributed", lambda m: _wrap_buckets(capture, m))
    _wrap_compiled_module(capture)


def _wrap_compiled_module(capture: Any) -> None:
    """`torch.compile(ddp)`: where the program compiled a DDP module (the wrapping line a
    diagnosis of DDP's own forward points at), heard where torch.compile builds the module it
    returns (capture/compiled_modules.py). Not a wrapper of torch.compile itself: code Dynamo
    traces may call torch.compile (transformers compiles flex_attention inside a model's
    forward), which Dynamo treats as a no-op, while a wrapper of ours would be traced and
    break the graph there ("Failed to convert args/kwargs to proxy"), a break plain python
    does not have."""
    def heard(wrapper: Any, mod: Any) -> None:
        if type(mod).__name__ == "DistributedDataParallel":
            capture.guarded("ddp compile", _on_compile, capture, mod, sys._getframe(1))

    on_compiled_module(heard)


def _on_compile(capture: Any, ddp: Any, caller: FrameType | None) -> None:
    inner = getattr(ddp, "module", None)
    value = {"via": "torch.compile", "module": type(inner).__qualname__, **_user_caller(caller)}
    capture.ing.event("ddp_wrap", None, {}, payload=json.dumps(value, default=repr))


def _wrap_init(capture: Any, module: Any) -> None:
    cls = getattr(module, "DistributedDataParallel", None)
    original = getattr(cls, "__init__", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        capture.guarded("ddp wrap", _on_wrap, capture, self, sys._getframe(1))

    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    __init__._compdiag = True  # type: ignore[attr-defined]
    __init__.__doc__ = original.__doc__
    cls.__init__ = __init__


def _user_caller(frame: FrameType | None) -> dict[str, Any]:
    """The innermost user frame at or above `frame` (a DDP subclass' own __init__ included)."""
    while frame is not None:
        fn = frame.f_code.co_filename
        if is_user_file(fn):
            return {"filename": fn, "lineno": frame.f_lineno,
                    "line": linecache.getline(fn, frame.f_lineno).strip() or None}
        frame = frame.f_back
    return {}


def _on_wrap(capture: Any, ddp: Any, caller: FrameType | None) -> None:
    import torch

    inner = getattr(ddp, "module", None)
    compiled = hasattr(inner, "_orig_mod") and type(inner).__name__ == "OptimizedModule"
    shown = getattr(inner, "_orig_mod", inner) if compiled else inner
    params = [p for p in ddp.parameters() if p.requires_grad]
    cap = getattr(ddp, "bucket_bytes_cap", None)
    mode = getattr(torch._dynamo.config, "optimize_ddp", None)
    value = {"via": "DDP", "module": type(shown).__qualname__ if shown is not None else None,
             "compiled": compiled, **_user_caller(caller),
             "bucket_cap_mb": cap / 2 ** 20 if isinstance(cap, (int, float)) else None,
             "params": len(params),
             "param_bytes": sum(p.numel() * p.element_size() for p in params),
             "settings": {"find_unused_parameters": getattr(ddp, "find_unused_parameters", None),
                          "static_graph": getattr(ddp, "static_graph", None),
                          "gradient_as_bucket_view": getattr(ddp, "gradient_as_bucket_view",
                                                             None),
                          "python_reducer": getattr(ddp, "_use_python_reducer", None),
                          "optimize_ddp": mode if isinstance(mode, (bool, str)) else repr(mode)}}
    capture.ing.event("ddp_wrap", None, {}, payload=json.dumps(value, default=repr))


def _wrap_buckets(capture: Any, module: Any) -> None:
    """DDPOptimizer.compile_fn hands its buckets to the module's pretty_print_buckets (which
    logs them at INFO/DEBUG, off by default): hear them there, then let torch log as it
    would."""
    original = getattr(module, "pretty_print_buckets", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    def pretty_print_buckets(buckets: Any, bucket_bytes_cap: int, *args: Any,
                             **kwargs: Any) -> Any:
        capture.guarded("ddp buckets", _on_buckets, capture, buckets, bucket_bytes_cap)
        return original(buckets, bucket_bytes_cap, *args, **kwargs)

    pretty_print_buckets._compdiag = True  # type: ignore[attr-defined]
    module.pretty_print_buckets = pretty_print_buckets


def _on_buckets(capture: Any, buckets: Any, cap: Any) -> None:
    value = {"cap_bytes": cap, "buckets": len(buckets),
             "sizes": [int(getattr(b, "size", 0) or 0) for b in buckets],
             "extended": any(getattr(b, "opcount_increased_to_capture_external_output", 0)
                             for b in buckets)}
    capture.ing.event("ddp_buckets", current_compile_id(), {},
                      payload=json.dumps(value, default=repr))
