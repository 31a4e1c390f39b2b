"""The ranks of a torchrun job: which rank a process is, which launch it belongs to, and how
capture follows a launcher's worker processes.

Two ways in (docs/ranks.md):
- `torchrun --no-python compdiag run train.py`: each rank's `compdiag run` reads its identity
  from the environment torchrun gives its workers (RANK, WORLD_SIZE, LOCAL_RANK,
  TORCHELASTIC_RUN_ID, ...) and names the job after the launch;
- `compdiag run -m torch.distributed.run ... train.py`: the launcher runs under capture, and
  the sitecustomize in `follow/` (on the workers' PYTHONPATH, the mechanism bisect's probes use)
  makes each worker capture itself into the same store, in the job of the launcher's run. The
  launcher reports each worker's exit status (a SIGKILLed worker cannot write its own).

Every rank writes to the one store at once (SQLite WAL, short transactions)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any, Mapping

from compdiag.formats.signal_names import signal_name

ENV_FOLLOW = "COMPDIAG_FOLLOW_JOB"  # set by `compdiag run` of a launcher: the job's id
ENV_RANK_RUN = "COMPDIAG_RANK_RUN"  # set by a captured rank: its descendants are not ranks
FOLLOW_DIR = Path(__file__).resolve().parent / "follow"
# Launchers whose workers `compdiag run` follows: modules and their console scripts.
LAUNCHER_MODULES = ("torch.distributed.run", "torch.distributed.launch")
LAUNCHER_SCRIPTS = ("torchrun",)
# capture.child's ENV_STORE and ENV_RUN, not imported here: the launcher's process is
# compdiag.capture.child itself, which runpy has not loaded yet when sitecustomize runs.
_ENV_STORE, _ENV_RUN = "COMPDIAG_STORE_PATH", "COMPDIAG_RUN_ID"


def _int(env: Mapping[str, str], name: str) -> int | None:
    try:
        return int(env[name])
    except (KeyError, ValueError):
        return None


def rank_identity(env: Mapping[str, str] = os.environ) -> dict[str, Any] | None:
    """{rank, world_size, local_rank, job} of a torch.distributed worker, None for a process
    that is not one (no RANK, or no WORLD_SIZE, in its environment)."""
    rank, world = _int(env, "RANK"), _int(env, "WORLD_SIZE")
    if rank is None or world is None:
        return None
    local = _int(env, "LOCAL_RANK")
    return {"rank": rank, "world_size": world, "local_rank": rank if local is None else local,
            "job": env.get(ENV_FOLLOW) or launch_id(env)}


def launch_id(env: Mapping[str, str] = os.environ) -> str:
    """The job id of a torchrun launch, the same in every worker it started on this host.

    TORCHELASTIC_RUN_ID (its first 8 characters: --standalone makes it a uuid) is 'none' for
    every launch without --rdzv-id, so the launch is told apart by the agent's per-attempt
    error-file directory (torchrun sets TORCHELASTIC_ERROR_FILE=<tmp>/<run>_<rand>/attempt_<n>/
    <local rank>/error.json), else by the launcher's pid and start time (the workers' parent)."""
    run = env.get("TORCHELASTIC_RUN_ID") or "job"
    err = env.get("TORCHELASTIC_ERROR_FILE")
    if err and len(Path(err).parts) > 3:
        key = str(Path(err).parent.parent)
    else:
        ppid = os.getppid()
        key = f"{ppid}:{_start_time(ppid)}:{env.get('TORCHELASTIC_RESTART_COUNT', '')}"
    key += f":{env.get('MASTER_ADDR', '')}:{env.get('MASTER_PORT', '')}"
    return f"{run[:8]}-{hashlib.sha1(key.encode()).hexdigest()[:8]}"


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def is_launcher(target: list[str], module: bool) -> bool:
    """Whether `compdiag run TARGET` starts a launcher whose workers capture should follow."""
    if not target:
        return False
    if module:
        return target[0] in LAUNCHER_MODULES
    return os.path.basename(target[0]) in LAUNCHER_SCRIPTS


def follow_env(env: dict[str, str], job: str) -> None:
    """What the launcher's environment needs for its workers to capture themselves."""
    env[ENV_FOLLOW] = job
    env["PYTHONPATH"] = os.pathsep.join(
        [str(FOLLOW_DIR)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))


def exit_status(returncode: int) -> tuple[int, str]:
    """A Popen returncode as the store keeps it: (128+N, 'killed') for signal N."""
    if returncode < 0:
        return 128 - returncode, "killed"
    return returncode, "done"


# -- in the processes of a followed launch (loaded by follow/sitecustomize.py) ----------------
def start_in_process() -> None:
    """A worker starts capturing itself; the launcher starts watching its workers."""
    if os.environ.get(ENV_RANK_RUN):
        return  # a process a captured rank started (a compile worker): not a rank
    ident = rank_identity(os.environ)
    if ident is None:
        if os.environ.get(_ENV_RUN):  # the launcher: `compdiag run`'s own child
            _watch_workers(os.environ[ENV_FOLLOW])
        return
    _capture_worker(ident)


def _capture_worker(ident: dict[str, Any]) -> None:
    import atexit

    from compdiag.capture.child import ENV_RUN, ENV_STORE
    from compdiag.store.writer import Writer

    writer = Writer(os.environ[ENV_STORE])
    argv = _argv()
    run_id = writer.begin_run(source="run", argv=argv, cwd=os.getcwd(), pid=os.getpid())
    writer.update_run(run_id, **ident)
    writer.close()
    os.environ[ENV_RUN] = str(run_id)
    os.environ[ENV_RANK_RUN] = str(run_id)
    state = {"code": None}
    atexit.register(_end_worker, os.environ[ENV_STORE], run_id, state)
    from compdiag.capture.child import _start_capture

    _note_exit(state, _start_capture())


def _argv() -> list[str]:
    """The worker's command line: sys.argv is not set yet when sitecustomize runs."""
    try:
        with open("/proc/self/cmdline", "rb") as f:
            parts = f.read().split(b"\0")
        return [p.decode("utf-8", "replace") for p in parts[1:] if p] or list(sys.argv)
    except OSError:
        return list(sys.argv)


def _note_exit(state: dict[str, Any], capture: Any) -> None:
    """The worker's own view of its exit status (the launcher's, when it has one, wins), and
    an exception that ends it recorded as `compdiag run` records one."""
    original_hook, original_exit = sys.excepthook, sys.exit

    def excepthook(tp, value, tb):  # noqa: ANN001
        state["code"] = 1
        if capture is not None:
            from compdiag.capture.failures import record_escaped_exception

            capture.guarded("exception", record_escaped_exception, capture.ing, value)
        original_hook(tp, value, tb)

    def exit_(code=0):  # noqa: ANN001
        state["code"] = code if isinstance(code, int) else (0 if code is None else 1)
        original_exit(code)

    sys.excepthook, sys.exit = excepthook, exit_


def _end_worker(store: str, run_id: int, state: dict[str, Any]) -> None:
    try:
        from compdiag.store.writer import Writer

        from compdiag.ingest.sources import keep_sources

        writer = Writer(store)
        keep_sources(writer, run_id)
        writer.end_run(run_id, exit_code=state["code"] or 0, status="done")
        writer.close()
    except Exception:  # noqa: BLE001 - fail open
        pass


def _watch_workers(job: str) -> None:
    """In the launcher: when a child process' exit status is first known (Popen.poll/wait, as
    torch.distributed.elastic reads it), it becomes the exit status of that rank's run."""
    import subprocess

    store = os.environ.get(_ENV_STORE)
    if not store or getattr(subprocess.Popen, "_compdiag_watched", False):
        return
    reported: set[int] = set()

    def report(proc: subprocess.Popen) -> None:
        code = proc.returncode
        if code is None or proc.pid in reported:
            return
        reported.add(proc.pid)
        try:
            from compdiag.store.writer import Writer

            exit_code, status = exit_status(code)
            writer = Writer(store)
            if writer.end_job_process(job, proc.pid, exit_code=exit_code, status=status) \
                    and code < 0:
                row = writer.conn.execute("SELECT id FROM runs WHERE job = ? AND pid = ?",
                                          (job, proc.pid)).fetchone()
                writer.warn(row[0], f"the rank was killed by signal {-code} "
                                    f"({signal_name(-code)}); capture holds what was written "
                                    "before")
            writer.close()
        except Exception:  # noqa: BLE001 - fail open
            pass

    for name in ("poll", "wait"):
        original = getattr(subprocess.Popen, name)

        def wrapped(self, *args, _original=original, **kwargs):  # noqa: ANN001
            result = _original(self, *args, **kwargs)
            if self.returncode is not None:
                report(self)
            return result

        setattr(subprocess.Popen, name, wrapped)
    subprocess.Popen._compdiag_watched = True  # type: ignore[attr-defined]
