"""Where capture time goes: compdiag's own hook time inside the user's process.

Runs SCRIPT under the capture exactly as `compdiag run` does (same child entry point), with
CPU timers (the calling thread's CPU time, so other load on the machine does not inflate them)
around compdiag's hook entry points (every structured-trace record, artifact-log line
and bytecode hook), depyf's decompile and the store writer's flushes (also the ones from the
background timer thread), and prints the totals at exit. The rest of a run's extra time over
plain python is torch's own: building the structured-trace payloads once a handler listens.

    python benchmarks/profile_capture.py SCRIPT [ARGS...]
"""

from __future__ import annotations

import atexit
import collections
import os
import sys
import tempfile
import threading
import time
from pathlib import Path


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    # capture's start in the program: what child._start_capture counts in a real run (the
    # capture's modules imported, before torch); imported here before the run, so timed here
    # and not seen by the run's counter below
    t0 = time.thread_time()
    from compdiag.capture import child, hooks
    from compdiag.ingest import ingestor  # noqa: F401
    from compdiag.store import writer as W

    start_cpu = time.thread_time() - t0

    store = Path(tempfile.mkdtemp(prefix="compdiag-profile-")) / "store.db"
    w = W.Writer(store)
    run_id = w.begin_run(source="run", argv=sys.argv[1:], cwd=os.getcwd())
    w.close()
    os.environ[child.ENV_STORE] = str(store)
    os.environ[child.ENV_RUN] = str(run_id)

    spent: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()
    spent["start: capture's modules imported (not in the run's counter here)"] = start_cpu
    calls["start: capture's modules imported (not in the run's counter here)"] = 1

    active = threading.local()  # the labels being timed on this thread: outermost call only

    def timed(label, fn):
        def wrapper(*args, **kwargs):
            name = label if isinstance(label, str) else label(args)
            busy = active.__dict__.setdefault("labels", set())
            if name in busy:  # a fused node's text calls its nodes': counted once
                return fn(*args, **kwargs)
            busy.add(name)
            t0 = time.thread_time()  # CPU of this thread: robust to other load
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.thread_time() - t0
                calls[name] += 1
                busy.discard(name)
        return wrapper

    hooks.Capture.guarded = timed(lambda a: "hook: " + a[1], hooks.Capture.guarded)
    # torch's records and fusion lines wait in a backlog (Capture.defer) and are ingested
    # together: the handlers' own part, and the ingest (on any thread, inline or at a tick)
    hooks.Capture.defer = timed(lambda a: "hook: " + a[1] + " (handed over)", hooks.Capture.defer)
    hooks.Capture._drain = timed("backlog ingested (records, fusion lines; any thread)",
                                 hooks.Capture._drain)
    hooks._decompile = timed("  of which depyf decompile", hooks._decompile)
    W.Writer.flush = timed("store flush (any thread; partly inside hooks)", W.Writer.flush)
    # torch's eager work for the fusion logger compdiag turns on: each round of fusion lists
    # every candidate node, its text built before the logger is called (not lazily)
    import torch._inductor.scheduler as sched

    for cls in vars(sched).values():
        if isinstance(cls, type) and "debug_str_short" in vars(cls):
            cls.debug_str_short = timed("torch: fusion candidates' text (debug_str_short)",
                                        cls.debug_str_short)
    # Python's cyclic GC runs whenever allocations pass its threshold, in whatever code
    # allocates then: a pass that starts inside a counted section lands in that section's
    # figure (a full pass of a compiling process takes tens of ms). Timed here, by where it ran.
    import gc

    gc_start = threading.local()

    def on_gc(phase, info):
        if phase == "start":
            gc_start.t = time.thread_time()
            return
        t0 = getattr(gc_start, "t", None)
        if t0 is None:
            return
        gc_start.t = None
        st = getattr(counted.get("capture"), "self_time", None)
        where = "program"
        if st is not None and getattr(st._local, "busy", False):
            where = "compdiag's counted code"
        elif st is not None and getattr(st._record, "start", None) is not None:
            where = "a torch trace record (counted as torch's work for compdiag)"
        spent[f"gc pass (gen {info.get('generation')}) inside {where}"] += time.thread_time() - t0
        calls[f"gc pass (gen {info.get('generation')}) inside {where}"] += 1

    counted: dict = {}
    gc.callbacks.append(on_gc)
    original_install = hooks.Capture.install

    def install(self):
        counted["capture"] = self
        return original_install(self)

    hooks.Capture.install = install
    t_start = time.perf_counter()
    cpu_start = time.process_time()

    def report() -> None:
        wall, cpu = time.perf_counter() - t_start, time.process_time() - cpu_start
        print(f"\nprofile_capture: process wall {wall:.2f}s, process CPU {cpu:.2f}s "
              f"(compile workers not included); store {store}", file=sys.stderr)
        hooks_cpu = sum(v for k, v in spent.items() if k.startswith(("hook: ", "backlog")))
        print(f"  compdiag hooks: {hooks_cpu:.3f}s CPU = {100 * hooks_cpu / cpu:.1f}% of the "
              "process CPU (flushes from the timer thread come on top)", file=sys.stderr)
        for label, s in sorted(spent.items(), key=lambda kv: -kv[1]):
            print(f"  {label:48s} {s:8.3f}s  {calls[label]:6d} calls", file=sys.stderr)
        from compdiag.store.reader import Reader

        with Reader(store) as r:  # what the run's own counter stored (capture/self_time.py)
            run = r.run(run_id)
        print(f"  the run's counter: compdiag {run.get('capture_cpu_s')}s, torch's trace "
              f"records {run.get('capture_trace_s')}s, of the program's {run.get('cpu_s')}s CPU",
              file=sys.stderr)
        print("  not here: the `compdiag run` process's own CPU (its start, imports, the "
              "store, the run's end), which `compdiag run` adds to the run's figure",
              file=sys.stderr)

    atexit.register(report)
    child.main(sys.argv[1:])


if __name__ == "__main__":
    main()
