"""Capture's own time inside the program, counted as it is spent (issue 34).

Two parts, kept apart because they are measured differently:

- compdiag's own code: its start in the program (importing the capture, opening the store,
  installing the hooks), every hook (capture.guarded: the structured-trace and artifact-log
  handlers, the live call stack read at dynamo_start, the bytecode hook, ...), with the ingest
  and the store writes they do, and every flush of the store writer, also the ones on its
  timer thread. Measured as CPU time of the thread it ran on (time.thread_time), outermost
  call only, so a hook inside a hook or a flush inside a hook counts once and other processes'
  load on the machine does not inflate it.
- the work compdiag makes torch do: once a handler listens on `torch.__trace`, torch builds
  every record (the envelope, the payload: graphs, guard trees, cache key components) where it
  would otherwise return at once. trace_structured starts by asking whether the logger has
  handlers (`if trace_log.handlers:`) and ends by adding its own timing of the record
  (add_structured_logging_overhead); the thread CPU time between the two, less compdiag's
  handler inside, is torch's share, also CPU time. (torch's own figure is wall time: under
  load it counted several times the CPU actually spent.) Text torch builds eagerly for an
  artifact logger only compdiag turned on (the fusion logger's candidate listing) is added
  to this share (count_torch_work).

Neither part counts Python's cyclic garbage collector: a pass runs in whatever code allocates
when its threshold is passed, and a full pass of a compiling process (0.3 s each, three a run
of benchmarks/workload_model.py) that started inside a record or a hook made that run's
figure jump by as much (two of three runs of one program). The passes collect the whole
program's objects; their time stays in the program's.

The run's CPU time is the program's process CPU time (time.process_time: every thread of the
process, compile workers in other processes not included), taken when the program ends. A
child forked by the test suite's fork server (capture/zygote.py) did not start the interpreter
or import torch itself: the server's CPU for that (INHERITED_CPU_S) is counted as the child's,
as a fresh process would have spent it.
"""

from __future__ import annotations

import gc
import threading
import time
import weakref
from typing import Any, Callable


INHERITED_CPU_S = 0.0  # set by capture/zygote.py in a forked child (see the docstring)


class SelfTime:
    def __init__(self) -> None:
        self.cpu_s = 0.0          # compdiag's own code, thread CPU seconds
        self.trace_s = 0.0        # torch building trace records for compdiag (torch's timer)
        self._lock = threading.Lock()
        self._local = threading.local()
        # per thread: the CPU time when its current record began (None: no record open),
        # and what compdiag's handler took inside it
        self._record = threading.local()
        # per thread: CPU seconds of the GC passes it ran so far (the module doc), and when
        # the one running now began
        self._gc = threading.local()
        ref = weakref.ref(self)

        def on_gc(phase: str, info: dict) -> None:
            me = ref()
            if me is not None:
                me._on_gc(phase, info)
            elif on_gc in gc.callbacks:  # this counter is gone (a test's)
                gc.callbacks.remove(on_gc)

        gc.callbacks.append(on_gc)

    def call(self, fn: Callable[..., Any], *args: Any, trace: bool = False) -> Any:
        """fn(*args), its thread CPU time counted unless an outer call already counts it.
        `trace`: the handler of a structured-trace record (its time is taken off the
        record's; a record torch does not time, compilation_metrics, leaves a figure the
        next record's handler replaces)."""
        local = self._local
        if getattr(local, "busy", False):
            return fn(*args)
        local.busy = True
        c0, g0 = time.thread_time(), self._gc_s()
        try:
            return fn(*args)
        finally:
            spent = time.thread_time() - c0 - (self._gc_s() - g0)
            if trace:  # one handler call per record: the record's end comes next
                self._record.handler = spent
            local.busy = False
            with self._lock:
                self.cpu_s += spent

    def add(self, seconds: float) -> None:
        """CPU time compdiag spent before this counter existed (its imports, the store
        opened: capture's start in the program)."""
        with self._lock:
            self.cpu_s += max(0.0, seconds)

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any) -> Any:
            return self.call(fn, *args)

        counted.__wrapped__ = fn  # type: ignore[attr-defined]
        return counted

    def count_torch_work(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """fn, its thread CPU time counted as torch's work for compdiag (with the trace
        records' share): text torch builds eagerly for a logger only compdiag turned on.
        Outermost call only; inside a compdiag hook it is counted as the hook's already."""
        me = self

        def counted(*args: Any, **kwargs: Any) -> Any:
            local = me._local
            if getattr(local, "busy", False) or getattr(local, "torch_work", False):
                return fn(*args, **kwargs)
            local.torch_work = True
            c0, g0 = time.thread_time(), me._gc_s()
            try:
                return fn(*args, **kwargs)
            finally:
                local.torch_work = False
                spent = time.thread_time() - c0 - (me._gc_s() - g0)
                with me._lock:
                    me.trace_s += spent

        counted.__wrapped__ = fn  # type: ignore[attr-defined]
        counted._compdiag = True  # type: ignore[attr-defined]
        return counted

    def install_trace_timer(self) -> None:
        """Count what torch spends building each structured-trace record (the module doc):
        the trace logger's handler list notes the thread CPU time when trace_structured asks
        whether anyone listens, torch's add_structured_logging_overhead closes the record."""
        import logging

        import torch._logging._internal as internal

        original = internal.add_structured_logging_overhead
        if getattr(original, "_compdiag", False):
            return
        me = self
        trace_log = logging.getLogger("torch.__trace")
        trace_log.handlers = _MarkedHandlers(trace_log.handlers, self)

        def add_structured_logging_overhead(time_spent: float) -> None:
            rec = me._record
            start, rec.start = getattr(rec, "start", None), None
            if start is not None:
                spent = time.thread_time() - start - getattr(rec, "handler", 0.0) - \
                    (me._gc_s() - getattr(rec, "gc_start", 0.0))
                if spent > 0:
                    with me._lock:
                        me.trace_s += spent
            rec.handler = 0.0
            return original(time_spent)

        add_structured_logging_overhead._compdiag = True  # type: ignore[attr-defined]
        internal.add_structured_logging_overhead = add_structured_logging_overhead

    def _mark(self) -> None:
        self._record.start = time.thread_time()
        self._record.gc_start = self._gc_s()

    def _gc_s(self) -> float:
        return getattr(self._gc, "total", 0.0)

    def _on_gc(self, phase: str, info: dict) -> None:
        """gc.callbacks: the CPU time of each pass, on the thread that ran it."""
        try:
            g = self._gc
            if phase == "start":
                g.began = time.thread_time()
            elif getattr(g, "began", None) is not None:
                g.total = getattr(g, "total", 0.0) + time.thread_time() - g.began
                g.began = None
        except Exception:  # noqa: BLE001 - a gc callback must never raise
            pass

    def facts(self) -> dict[str, float]:
        """The run's columns (store/schema.py): capture_cpu_s (compdiag's code),
        capture_trace_s (torch's work for it), cpu_s (the program's process CPU time so far)."""
        return {"capture_cpu_s": round(self.cpu_s, 6), "capture_trace_s": round(self.trace_s, 6),
                "cpu_s": round(time.process_time() + INHERITED_CPU_S, 6)}


class _MarkedHandlers(list):
    """The trace logger's handler list; `if trace_log.handlers:` at the start of torch's
    trace_structured marks where a record's work begins (the list itself is unchanged)."""

    def __init__(self, handlers: Any, self_time: SelfTime) -> None:
        super().__init__(handlers)
        self._self_time = self_time

    def __len__(self) -> int:
        self._self_time._mark()
        return super().__len__()
