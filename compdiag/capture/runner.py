"""`compdiag run`: start the program in a child process with capture installed, pass its
streams through untouched, and exit with its own status (128+N when killed by signal N)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from compdiag.capture.child import ENV_RUN, ENV_STORE
from compdiag.formats.words import plural
from compdiag.ingest.reindex import ensure_current
from compdiag.store.writer import Writer


def run_program(store: Path, target: list[str], *, module: bool = False,
                mode: str | None = None, extra_env: dict[str, str] | None = None,
                quiet: bool = False, pass_fds: tuple[int, ...] = ()) -> tuple[int, int]:
    """Run TARGET under capture; returns (exit status, run id). `pass_fds` stay open in the
    child (compdiag perf's progress channel)."""
    store = store.resolve()
    ensure_current(store, lambda line: print(line, file=sys.stderr))
    writer = Writer(store)
    argv = (["-m"] if module else []) + target
    run_id = writer.begin_run(source="run", argv=argv, cwd=os.getcwd(), mode=mode)
    env = dict(os.environ)
    env[ENV_STORE] = str(store)
    env[ENV_RUN] = str(run_id)
    if mode:
        env["COMPDIAG_MODE"] = mode
    env.update(extra_env or {})
    cmd = [sys.executable, "-m", "compdiag.capture.child", *argv]
    started = time.time()
    proc = subprocess.Popen(cmd, env=env, pass_fds=pass_fds)
    writer.update_run(run_id, pid=proc.pid)
    writer.flush()
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child gets Ctrl-C itself
    old_term = signal.signal(signal.SIGTERM, lambda *_: proc.send_signal(signal.SIGTERM))
    try:
        rc = proc.wait()
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
    if rc < 0:
        exit_code, status = 128 - rc, "killed"
        writer.warn(run_id, f"the program was killed by signal {-rc} "
                            f"({_signame(-rc)}); capture holds what was written before")
    else:
        exit_code, status = rc, "done"
    writer.update_run(run_id, ended_at=time.time())
    writer.end_run(run_id, exit_code=exit_code, status=status)
    writer.close()
    if not quiet:
        _summary(store, run_id, time.time() - started)
    return exit_code, run_id


def _signame(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return str(num)


def _summary(store: Path, run_id: int, wall: float) -> None:
    try:
        from compdiag.store.reader import Reader

        with Reader(store) as r:
            c = r.counts(run_id)
            warns = r.warnings(run_id)
        counts = ", ".join(plural(n, word) for n, word in (
            (c["compiles"], "compile"), (c["graph_breaks"], "graph break"),
            (c["recompiles"], "recompile"), (c["failures"], "failure"),
            (c["kernels"], "kernel"), (c["cudagraph_skips"], "cudagraph skip"),
            (len(warns), "warning")))
        line = f"compdiag: {counts} | run {run_id} in {_short(store)} ({wall:.1f}s)"
        print(line, file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - the summary must not change the exit status
        print(f"compdiag: run {run_id} stored in {store} (summary unavailable: {exc})",
              file=sys.stderr)


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
