"""`compdiag run`: start the program in a child process with capture installed, pass its
streams through untouched, and exit with its own status (128+N when killed by signal N)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compdiag.capture import ranks
from compdiag.capture.child import ENV_FAULT_FILE, ENV_RUN, ENV_STORE
from compdiag.capture.stderr_tee import StderrTee
from compdiag.capture.zygote_client import ENV_ZYGOTE
from compdiag.formats.command_line import command_line
from compdiag.formats.signal_names import signal_name
from compdiag.formats.words import plural
from compdiag.ingest.reindex import ensure_current
from compdiag.ingest.sources import keep_sources
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
    job = _join_job(writer, run_id, env, target, module)
    if mode:
        env["COMPDIAG_MODE"] = mode
    env.update(extra_env or {})
    cmd = [sys.executable, "-m", "compdiag.capture.child", *argv]
    fault = _fault_file(env)
    tee = StderrTee()
    started = time.time()
    try:
        proc = _start_child(cmd, env, pass_fds, tee.child_fd)
    finally:
        tee.started()
    writer.update_run(run_id, pid=proc.pid)
    writer.flush()
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child gets Ctrl-C itself
    old_term = signal.signal(signal.SIGTERM, lambda *_: proc.send_signal(signal.SIGTERM))
    try:
        rc = proc.wait()
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
    exit_code, status = ranks.exit_status(rc)
    _record_end(writer, run_id, rc, exit_code, tee.tail(), _read_fault(fault))
    if rc < 0:
        writer.warn(run_id, f"the program was killed by signal {-rc} "
                            f"({signal_name(-rc)}); capture holds what was written before")
    writer.update_run(run_id, ended_at=time.time())
    count_own_cpu(writer, run_id)
    keep_sources(writer, run_id)
    writer.end_run(run_id, exit_code=exit_code, status=status)
    if job is not None:  # a rank whose process vanished without anyone seeing its status
        writer.update("runs", {"job": job, "status": "running"}, status="crashed")
    writer.close()
    if not quiet:
        _summary(store, run_id, time.time() - started)
        if job is not None:
            _job_summary(store, job)
    return exit_code, run_id


def _start_child(cmd: list[str], env: dict[str, str], pass_fds: tuple[int, ...],
                 stderr: int | None):
    """The capture child: a fresh interpreter, or (COMPDIAG_ZYGOTE, an internal option the
    test suite sets) a fork of a server that imported torch already, where it would behave
    the same (capture/zygote.py); the fresh interpreter whenever the server cannot."""
    server = os.environ.get(ENV_ZYGOTE)
    if server:
        from compdiag.capture import zygote_client

        forked = zygote_client.start(server, cmd[3:], env, stderr, pass_fds)
        if forked is not None:
            return forked
    return subprocess.Popen(cmd, env=env, pass_fds=pass_fds, stderr=stderr)


def count_own_cpu(writer: Writer, run_id: int) -> None:
    """Add this `compdiag run` process's own CPU time (its start, imports and argument
    parsing, the store opened, its stderr relay while the program ran, the run's end) to the
    capture's own time the program counted (`runs.capture_cpu_s`): a cost of capture that
    the process tree pays and the program's counter cannot see (issue 34, the gap between the
    tree's CPU ratio and the in-process figure). Not when the program counted nothing
    (capture disabled, killed before its exit)."""
    try:
        me = resource.getrusage(resource.RUSAGE_SELF)
        writer.add_to_run(run_id, "capture_cpu_s", round(me.ru_utime + me.ru_stime, 6))
    except Exception:  # noqa: BLE001 - fail open: the figure is not worth the exit status
        pass


def _fault_file(env: dict[str, str]) -> str | None:
    """A file for the child's faulthandler dump (capture/child.py), named in its env."""
    try:
        fd, path = tempfile.mkstemp(prefix="compdiag-fault-", suffix=".txt")
        os.close(fd)
    except OSError:
        return None
    env[ENV_FAULT_FILE] = path
    return path


def _read_fault(path: str | None) -> str:
    if path is None:
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()[-200_000:]
    except OSError:
        return ""
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def _record_end(writer: Writer, run_id: int, rc: int, exit_code: int, stderr_tail: str,
                fault: str) -> None:
    """A run that did not exit 0 gets a program_end record: its status or signal, the end of
    its stderr and faulthandler's dump (ingest/endings.py reads them), after the child's own
    records. Fail open: the exit status is the program's whatever happens here."""
    if rc == 0:
        return
    try:
        from compdiag.ingest.ingestor import Ingestor

        writer.flush()
        last = writer.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM records WHERE "
                                   "run_id = ?", (run_id,)).fetchone()[0]
        ing = Ingestor(writer, run_id)
        ing.seq = int(last)
        ing.kernel_sources = _stored_kernels(writer, run_id)
        ing.graph_calls = _stored_graph_calls(writer, run_id)
        ing.wrapper_calls = _stored_wrapper_calls(writer, run_id)
        ing.program_end(how="signal" if rc < 0 else "exit", exit_code=exit_code,
                        signal=-rc if rc < 0 else None, stderr_tail=stderr_tail,
                        fault=fault or None)
        writer.flush()
    except Exception as exc:  # noqa: BLE001
        writer.warn(run_id, f"how the program ended was not recorded ({exc})")


def _stored_wrapper_calls(writer: Writer, run_id: int) -> dict:
    """Each output code file's wrapper lines that call a kernel, as the child's Ingestor held
    them (file -> line -> {kernel, kernel_compile_id, kernel_frames}): a crash whose Python
    stack ends on such a line died in that kernel."""
    from compdiag.ingest import parsers as P
    from compdiag.store.reader import Reader

    held: dict = {}
    with Reader(writer.path) as r:
        kernels: dict = {}
        for k in r.kernels(run_id, with_source=False):
            kernels.setdefault(k["compile_id"], []).append(k)
        for rec in r.records(run_id, kind="inductor_output_code"):
            md = (rec.get("metadata") or {}).get("inductor_output_code") or {}
            files = {md.get(key) for key in ("filename", "file_path")
                     if isinstance(md.get(key), str)}
            if not files or not rec.get("payload"):
                continue
            cid = rec.get("compile_id")
            calls = P.wrapper_kernel_calls(rec["payload"], kernels.get(cid) or [], cid)
            for f in files:
                held[f] = calls
    return held


def _stored_kernels(writer: Writer, run_id: int) -> dict:
    """The run's generated kernels as the child's Ingestor held them (compile id -> [(name,
    source, user lines)]): a native end names the kernel whose check it died in."""
    from compdiag.store.reader import Reader

    held: dict = {}
    with Reader(writer.path) as r:
        for k in r.kernels(run_id):
            held.setdefault(k["compile_id"], []).append(
                (k["name"], k.get("source") or "", k.get("user_lines") or []))
    return held


def _stored_graph_calls(writer: Writer, run_id: int) -> dict:
    """The run's Dynamo graphs' nodes as the child's Ingestor held them (compile id ->
    graph_calls' nodes): an end in an eager backend's generated code names one of them."""
    from compdiag.store.reader import Reader

    held: dict = {}
    with Reader(writer.path) as r:
        for c in r.compiles(run_id):
            held[c["compile_id"]] = [
                {"name": n["node"], "call": n["call"] or "",
                 "frame": {k: n[k] for k in ("filename", "lineno", "line")}
                 if n["filename"] else None} for n in r.dynamo_nodes(run_id, c["compile_id"])]
    return held


def _join_job(writer: Writer, run_id: int, env: dict[str, str], target: list[str],
              module: bool) -> str | None:
    """A rank of a torchrun job (its environment says so) joins the job; a launcher's run
    heads a new job whose workers capture themselves (capture/ranks.py). None otherwise."""
    ident = ranks.rank_identity(env)
    if ident is not None:
        writer.update_run(run_id, **ident)
        return None
    if not ranks.is_launcher(target, module):
        return None
    job = f"run-{run_id}"
    writer.update_run(run_id, job=job)
    ranks.follow_env(env, job)
    return job


def _job_summary(store: Path, job: str) -> None:
    """One line per rank of a followed launch: its run and exit status (a rank whose process
    ended without a word is said so)."""
    try:
        from compdiag.store.reader import Reader

        with Reader(store) as r:
            rows = r.job_runs(job)
        print(f"compdiag: job {job}: {plural(len(rows), 'rank')}"
              f" (`{command_line('explain', '--job', job, store=store)}`)", file=sys.stderr)
        for row in rows:
            code = row["exit_code"]
            if row["status"] == "killed" and code is not None and code > 128:
                what = f"killed by {signal_name(code - 128)} (exit {code})"
            elif row["status"] == "crashed":
                what = "ended without an exit status (its process is gone)"
            else:
                what = f"exit {code}"
            print(f"compdiag:   rank {row['rank']}: run {row['id']}, {what}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - the summary must not change the exit status
        print(f"compdiag: job {job} stored in {store} (summary unavailable: {exc})",
              file=sys.stderr)


def _summary(store: Path, run_id: int, wall: float) -> None:
    try:
        from compdiag.store.reader import Reader

        with Reader(store) as r:
            c = r.counts(run_id)
            warns = r.warnings(run_id)
            run = r.run(run_id)
            code = run.get("exit_code") if run.get("status") == "killed" else None
        counts = ", ".join(plural(n, word) for n, word in (
            (c["compiles"], "compile"), (c["graph_breaks"], "graph break"),
            (c["recompiles"], "recompile"), (c["failures"], "failure"),
            *([(c["accuracy_mismatches"], "accuracy mismatch")]
              if c.get("accuracy_mismatches") else []),
            (c["kernels"], "kernel"), (c["cudagraph_skips"], "cudagraph skip"),
            (len(warns), "warning")))
        line = f"compdiag: {counts}{_ended(code)} | run {run_id} in {_short(store)} ({wall:.1f}s)"
        print(line, file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - the summary must not change the exit status
        print(f"compdiag: run {run_id} stored in {store} (summary unavailable: {exc})",
              file=sys.stderr)


def _ended(code: int | None) -> str:
    """How a program killed by a signal ended, for the summary line (probes42c
    mel_cnn_cl_freq_pool_tail: a SIGABRT run read "0 failures" and nothing else)."""
    if not isinstance(code, int) or not 128 < code < 128 + 65:
        return ""
    try:
        import signal

        return f" | killed by {signal.Signals(code - 128).name}"
    except ValueError:
        return f" | exit {code}"


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
