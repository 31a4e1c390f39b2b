"""The program's calls of torch's portable cache API (`torch.compiler.save_cache_artifacts`,
`load_cache_artifacts`, the "mega-cache"), each with the user's line, what it saved or
loaded, and how many graphs had been compiled by then.

A save made before the compiled calls returns None and writes nothing: every later launch
compiles cold, and all torch's logs show is a miss of the same key (probes42f
mega_cache_save_before_call, blind: said as a miss at the compiled call, with a fix for the
cache directory). The record lets the cache kind say so at the save's line. Fail-open: the
original is called as it is and its result returned unchanged; a fault is a run warning."""

from __future__ import annotations

import functools
from typing import Any, Callable

RECORD = "cache_artifacts"  # the record's kind (compdiag:cache_artifacts)
CALLS = ("save_cache_artifacts", "load_cache_artifacts")


def install(capture: Any, graphs: Callable[[], int],
            is_user_file: Callable[[str], bool]) -> None:
    import torch.compiler as compiler

    for name in CALLS:
        original = getattr(compiler, name, None)
        if original is not None and not getattr(original, "_compdiag", False):
            setattr(compiler, name, _wrapped(capture, name, original, graphs, is_user_file))


def _wrapped(capture: Any, name: str, original: Callable[..., Any],
             graphs: Callable[[], int], is_user_file: Callable[[str], bool]
             ) -> Callable[..., Any]:
    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        try:  # fail open
            if not capture.paused_depth:
                capture.guarded(RECORD, _record, capture, name, out, graphs, is_user_file)
        except Exception:  # noqa: BLE001, S110
            pass
        return out

    call._compdiag = True  # type: ignore[attr-defined]
    return call


def _record(capture: Any, name: str, out: Any, graphs: Callable[[], int],
            is_user_file: Callable[[str], bool]) -> None:
    import sys

    from compdiag.capture.config_sets import frame_facts

    frame = sys._getframe(1)  # the first user frame up the stack is the caller
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        frame = frame.f_back
    save = name.startswith("save")
    # a save returns (bytes, CacheInfo), a load its CacheInfo; either may be None
    blob, info = out if save and isinstance(out, tuple) and len(out) == 2 else (None, out)
    counts = {str(k): len(v) for k, v in (getattr(info, "artifacts", None) or {}).items()}
    capture.ing.event(RECORD, None, {
        "op": "save" if save else "load", "returned_none": out is None,
        "bytes": len(blob) if isinstance(blob, (bytes, bytearray)) else None,
        "artifacts": counts, "graphs": graphs(),
        "call": frame_facts(frame) if frame is not None else None}, None)
