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
import time
from pathlib import Path


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    from compdiag.capture import child, hooks
    from compdiag.store import writer as W

    store = Path(tempfile.mkdtemp(prefix="compdiag-profile-")) / "store.db"
    w = W.Writer(store)
    run_id = w.begin_run(source="run", argv=sys.argv[1:], cwd=os.getcwd())
    w.close()
    os.environ[child.ENV_STORE] = str(store)
    os.environ[child.ENV_RUN] = str(run_id)

    spent: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()

    def timed(label, fn):
        def wrapper(*args, **kwargs):
            t0 = time.thread_time()  # CPU of this thread: robust to other load
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label if isinstance(label, str) else label(args)] += \
                    time.thread_time() - t0
                calls[label if isinstance(label, str) else label(args)] += 1
        return wrapper

    hooks.Capture.guarded = timed(lambda a: "hook: " + a[1], hooks.Capture.guarded)
    hooks._decompile = timed("  of which depyf decompile", hooks._decompile)
    W.Writer.flush = timed("store flush (any thread; partly inside hooks)", W.Writer.flush)
    t_start = time.perf_counter()
    cpu_start = time.process_time()

    def report() -> None:
        wall, cpu = time.perf_counter() - t_start, time.process_time() - cpu_start
        print(f"\nprofile_capture: process wall {wall:.2f}s, process CPU {cpu:.2f}s "
              f"(compile workers not included); store {store}", file=sys.stderr)
        hooks_cpu = sum(v for k, v in spent.items() if k.startswith("hook: "))
        print(f"  compdiag hooks: {hooks_cpu:.3f}s CPU = {100 * hooks_cpu / cpu:.1f}% of the "
              "process CPU (flushes from the timer thread come on top)", file=sys.stderr)
        for label, s in sorted(spent.items(), key=lambda kv: -kv[1]):
            print(f"  {label:48s} {s:8.3f}s  {calls[label]:6d} calls", file=sys.stderr)

    atexit.register(report)
    child.main(sys.argv[1:])


if __name__ == "__main__":
    main()
