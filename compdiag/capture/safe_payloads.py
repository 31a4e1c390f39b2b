"""torch's structured-trace records, built without ending a compile (fail open).

Capture turns the structured trace on, so torch builds every record's metadata and payload
(`trace_structured(name, metadata_fn, payload_fn=...)`), which a plain run never does. Some of
those builders raise: AOTAutograd's `aot_forward_graph_fw_metadata` prints its metadata's
tensors, and printing a fake tensor subclass runs `masked_select`, which fake tensors refuse;
the exception escaped into the compile, Dynamo took it for a backend failure, and the program
ran its function in eager under `compdiag run` while it compiled under plain python (set19
subclass_scale_recompile). Here, once, torch's trace_structured is made to catch what a
builder raises: the record is still written, with a payload saying what raised, and capture
warns; the compile goes on as in a plain run.

The function object stays torch's (modules bound it by name when they imported it): its code
is swapped for a forwarder to a copy of the original, with the builders guarded. The file is
one Dynamo skips, as torch's own (after_import.untraced)."""

from __future__ import annotations

import types
from typing import Any, Callable

from compdiag.capture.after_import import untraced

Warn = Callable[[str, BaseException], None]
_warn: list[Warn] = []


def _guarded(builder: Any, name: str, empty: Any) -> Any:
    """`builder`, returning `empty` (or a note of what raised) instead of raising."""
    if not callable(builder):
        return builder

    def build() -> Any:
        try:
            return builder()
        except Exception as exc:  # noqa: BLE001 - fail open: the compile goes on
            for warn in _warn:
                warn(f"torch's trace record {name}", exc)
            return empty if empty is not None else \
                f"<compdiag: torch's builder of this record raised {type(exc).__name__}: {exc}>"
    return build


def _forward(name, metadata_fn=dict, *, payload_fn=lambda: None, **kwargs):  # type: ignore
    # runs as torch's trace_structured (its globals): the names below are set there
    return _compdiag_original(name, _compdiag_guarded(metadata_fn, name, {}),  # noqa: F821
                              payload_fn=_compdiag_guarded(payload_fn, name, None),  # noqa: F821
                              **kwargs)


def install(warn: Warn) -> None:
    """Guard the builders of every structured-trace record from now on (once)."""
    from torch._logging import _internal

    _warn[:] = [warn]
    original = getattr(_internal, "trace_structured", None)
    if not isinstance(original, types.FunctionType) or \
            "_compdiag_original" in original.__globals__:
        return
    params = original.__code__.co_varnames[:original.__code__.co_argcount]
    if params[:2] != ("name", "metadata_fn") or \
            "payload_fn" not in (original.__kwdefaults__ or {}):
        return  # another signature: left as torch wrote it
    untraced(__name__)
    copy = types.FunctionType(original.__code__, original.__globals__, original.__name__,
                              original.__defaults__, original.__closure__)
    copy.__kwdefaults__ = dict(original.__kwdefaults__ or {})
    original.__globals__["_compdiag_original"] = copy
    original.__globals__["_compdiag_guarded"] = _guarded
    original.__code__ = _forward.__code__
