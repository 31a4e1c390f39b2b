"""Worker processes the program starts (a multiprocessing Pool, a ProcessPoolExecutor,
DataLoader workers): `compdiag run` captures the process it starts, and what a worker compiles
is not in the store. A run that compiled nothing itself but started workers is told so, not
"nothing was compiled: call what torch.compile returned" (probes41d pool_map_compiled_scorer_ok:
`pool.map(score, shards)` of an `@torch.compile` function ran it compiled in two spawned
workers, and explain called the correct program's compile unused).

Capture wraps `multiprocessing.process.BaseProcess.start` and keeps, once per user line, the
first user frame of the stack that started a process, with the start method: a
`compdiag:process_start` record. Fail-open, and a worker's start is never delayed by more than
the frame walk."""

from __future__ import annotations

import sys
from typing import Any, Callable

PROCESS_START = "process_start"  # the record's kind
# the starts that are not the program's workers of compiled code (review of session 41)
_NOT_WORKERS = ("/torch/utils/data/", "/torch/_inductor/")


def _first_user_frame(is_user_file: Callable[[str], bool]) -> dict[str, Any] | None:
    """The innermost frame of the user's code on the stack (the Pool, executor or loader
    call that started the process); None when no user frame is on it."""
    from compdiag.capture.config_sets import frame_facts

    frame = sys._getframe(2)
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        if any(m in frame.f_code.co_filename.replace("\\", "/") for m in _NOT_WORKERS):
            return None  # DataLoader's workers, Inductor's compile pool: no compiled calls
        frame = frame.f_back
    return None if frame is None else frame_facts(frame)


def install(capture: Any, is_user_file: Callable[[str], bool]) -> None:
    from multiprocessing import process

    original = process.BaseProcess.start
    if getattr(original, "_compdiag", False):
        return
    seen: set[tuple[str, int]] = set()

    def start(self: Any) -> None:
        original(self)
        try:  # fail open: the process is started; bookkeeping never reaches the program
            if capture.paused_depth:
                return
            frame = _first_user_frame(is_user_file)
            if frame is None or (frame["filename"], frame["lineno"]) in seen:
                return
            seen.add((frame["filename"], frame["lineno"]))
            method = getattr(getattr(self, "_popen", None), "method", None) or \
                type(self).__name__
            capture.guarded("process start", capture.ing.event, PROCESS_START, None,
                            {"method": str(method), "call": frame}, None)
        except Exception:  # noqa: BLE001, S110
            pass

    start._compdiag = True  # type: ignore[attr-defined]
    process.BaseProcess.start = start  # type: ignore[method-assign]
