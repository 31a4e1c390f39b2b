"""Capture's own time inside the program, counted as it is spent (issue 34).

Two parts, kept apart because they are measured differently:

- compdiag's own code: every hook (capture.guarded: the structured-trace and artifact-log
  handlers, the live call stack read at dynamo_start, the bytecode hook, ...), with the ingest
  and the store writes they do, and every flush of the store writer, also the ones on its
  timer thread. Measured as CPU time of the thread it ran on (time.thread_time), outermost
  call only, so a hook inside a hook or a flush inside a hook counts once and other processes'
  load on the machine does not inflate it.
- the work compdiag makes torch do: once a handler listens on `torch.__trace`, torch builds
  every record (the envelope, the payload: graphs, guard trees, cache key components) where it
  would otherwise return at once. torch times each record itself (trace_structured's
  structured-logging overhead, wall time on the compiling thread); that figure less the
  wall time compdiag's handler took inside the same record is torch's share. It is wall time
  (torch's timer), the one part that can swing with the machine's load.

The run's CPU time is the program's process CPU time (time.process_time: every thread of the
process, compile workers in other processes not included), taken when the program ends.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable


class SelfTime:
    def __init__(self) -> None:
        self.cpu_s = 0.0          # compdiag's own code, thread CPU seconds
        self.trace_s = 0.0        # torch building trace records for compdiag (torch's timer)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._handler_wall = 0.0  # wall time of compdiag's handler in the current record

    def call(self, fn: Callable[..., Any], *args: Any, trace: bool = False) -> Any:
        """fn(*args), its thread CPU time counted unless an outer call already counts it.
        `trace`: the handler of a structured-trace record (its wall time is taken off
        torch's figure for that record; a record torch does not time, compilation_metrics,
        leaves a figure the next record's handler replaces)."""
        local = self._local
        if getattr(local, "busy", False):
            return fn(*args)
        local.busy = True
        c0 = time.thread_time()
        w0 = time.perf_counter() if trace else 0.0
        try:
            return fn(*args)
        finally:
            spent = time.thread_time() - c0
            if trace:  # one handler call per record: torch's timer of it comes next
                self._handler_wall = time.perf_counter() - w0
            local.busy = False
            with self._lock:
                self.cpu_s += spent

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any) -> Any:
            return self.call(fn, *args)

        counted.__wrapped__ = fn  # type: ignore[attr-defined]
        return counted

    def install_trace_timer(self) -> None:
        """Count torch's own timing of each structured-trace record (see the module doc)."""
        import torch._logging._internal as internal

        original = internal.add_structured_logging_overhead
        if getattr(original, "_compdiag", False):
            return
        me = self

        def add_structured_logging_overhead(time_spent: float) -> None:
            try:
                extra = float(time_spent) - me._handler_wall
                if extra > 0:
                    me.trace_s += extra
            except (TypeError, ValueError):
                pass
            me._handler_wall = 0.0
            return original(time_spent)

        add_structured_logging_overhead._compdiag = True  # type: ignore[attr-defined]
        internal.add_structured_logging_overhead = add_structured_logging_overhead

    def facts(self) -> dict[str, float]:
        """The run's columns (store/schema.py): capture_cpu_s (compdiag's code), capture_trace_s (torch's
        records for it), cpu_s (the program's process CPU time so far)."""
        return {"capture_cpu_s": round(self.cpu_s, 6), "capture_trace_s": round(self.trace_s, 6),
                "cpu_s": round(time.process_time(), 6)}
