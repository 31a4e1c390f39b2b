"""Helpers shared by the CPU suite's tests (fixtures live in conftest.py).

Compiling is the expensive part (10-40 s for a cold tiny graph on a busy 2-core machine), so
every scenario script under tests/scripts/ runs once per session into ONE session store, and
all tests read that store. TORCHINDUCTOR_CACHE_DIR points at one temp dir for the whole pytest
session (shared_cache(), xdist's workers included), so Inductor's caches are shared between
every test that is not about caching, but never with the user's own ~/.cache or /tmp. A test
whose expectation depends on a compile really happening (a cache miss, a cold run) passes its
own fresh directory and says why."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).parent / "scripts"
REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 600

# The session's shared Inductor cache dir: made by conftest.py's pytest_configure in the
# controlling process and inherited through the environment by pytest-xdist's workers.
SHARED_CACHE_ENV = "COMPDIAG_TESTS_INDUCTOR_CACHE"

_SUMMARY = re.compile(r"^compdiag: .* \| run (\d+) in ", re.M)

# Torch's own settings that every child of the suite gets (conftest.py puts them in the session's
# environment, base_env() puts them back after stripping TORCHINDUCTOR_*; a value already in
# the environment wins). Test-only, measured in benchmarks/test_time.md:
# TORCHINDUCTOR_VEC_ISA_OK=1 lets Inductor take the CPU's vector ISA from cpuinfo instead of
# proving it by building three probe kernels with g++ in every process whose
# TORCHINDUCTOR_CACHE_DIR is fresh (about 10 CPU s each: perf's runs, the cache_* cases,
# test_caches, the zoo). The ISA picked, hence every kernel's source and g++ flags, is the same,
# but a cold run records fewer compile events, so the docs examples keep torch's defaults
# (docs_examples.environment). On a machine whose compiler cannot build for its CPU's ISA, run
# the suite with TORCHINDUCTOR_VEC_ISA_OK=0.
# TORCHINDUCTOR_COMPILE_THREADS=1: torch reads it at import, so the capture children that the
# fork server (fork_server_env) serves must all agree on it; 1 is what the corpus and bisect
# always used, and a CPU-only torch compiles C++ kernels the same either way (test_time.md).
TORCH_TEST_ENV = {"TORCHINDUCTOR_VEC_ISA_OK": "1", "TORCHINDUCTOR_COMPILE_THREADS": "1"}

# This process's fork server for capture children (capture/zygote.py), started by conftest.py's
# pytest_configure in each process that runs tests; None: every child starts fresh.
FORK_SERVER: str | None = None


def fork_server_env(wait_s: float = 300) -> dict[str, str]:
    """What a test adds to a `compdiag run`'s environment to have its capture child forked by
    the session's server (COMPDIAG_ZYGOTE; falls back to a fresh interpreter by itself). Only
    for ordinary captures: a test about process start, exit statuses, signals, import failures
    or ranks leaves it out, so the users' path is what it tests.

    Waits (up to `wait_s`) for the server to finish importing torch: a child started fresh
    meanwhile would import torch a second time, and CPU, not wall time, is what two cores lack.
    A server that did not start or get ready in time: {} (fresh interpreters)."""
    if not FORK_SERVER:
        return {}
    return _when_ready(FORK_SERVER, wait_s)


def _when_ready(sock: str, wait_s: float) -> dict[str, str]:
    """{"COMPDIAG_ZYGOTE": SOCK} once the server at SOCK imported torch; {} if it failed or
    was not ready within `wait_s`."""
    log = Path(sock + ".log")
    end = time.monotonic() + wait_s
    while True:
        text = log.read_text() if log.exists() else ""
        if " ready " in text:
            return {"COMPDIAG_ZYGOTE": sock}
        if "could not start" in text or time.monotonic() > end:
            return {}
        time.sleep(0.5)


def start_fork_server(env: dict[str, str]) -> tuple[subprocess.Popen, str] | None:
    """A fork server (capture/zygote.py) whose children import torch as a fresh interpreter
    with `env` would: (its process, its folder; the socket is FOLDER/sock, its log
    FOLDER/sock.log), or None when it cannot start. Ended by stop_fork_server."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="compdiag-fork-")
    sock = os.path.join(folder, "sock")
    try:
        with open(sock + ".log", "a") as log:
            proc = subprocess.Popen([sys.executable, "-m", "compdiag.capture.zygote", sock],
                                    env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=log, start_new_session=True)
    except OSError:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        return None
    return proc, folder


def stop_fork_server(proc: subprocess.Popen, folder: str, keep_log: str | None) -> None:
    """Closes the server's stdin (its cue to exit), appends its log to `keep_log` if given,
    removes its folder."""
    import shutil

    proc.stdin.close()  # type: ignore[union-attr]
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if keep_log:
        with open(os.path.join(folder, "sock.log")) as src, open(keep_log, "a") as dst:
            dst.write(src.read())
    shutil.rmtree(folder, ignore_errors=True)


class OwnForkServer:
    """A fork server of a test's own, for captures whose environment the session's server
    would refuse (test_perf_e2e's OMP_NUM_THREADS=1: capture/zygote.py's fingerprint).
    `with OwnForkServer(env) as extra:` gives what to add to the `compdiag` command's
    environment ({} when it did not start: fresh interpreters). COMPDIAG_TESTS_FORK_SERVER=0
    starts none; COMPDIAG_TESTS_FORK_LOG=FILE keeps its log, as for the session's."""

    def __init__(self, env: dict[str, str], wait_s: float = 300) -> None:
        self.env, self.wait_s = env, wait_s
        self.started: tuple[subprocess.Popen, str] | None = None

    def __enter__(self) -> dict[str, str]:
        if os.environ.get("COMPDIAG_TESTS_FORK_SERVER") == "0":
            return {}
        self.started = start_fork_server(self.env)
        if self.started is None:
            return {}
        return _when_ready(os.path.join(self.started[1], "sock"), self.wait_s)

    def __exit__(self, *exc: object) -> None:
        if self.started is not None:
            stop_fork_server(*self.started, os.environ.get("COMPDIAG_TESTS_FORK_LOG"))
            self.started = None


def torch_test_env() -> dict[str, str]:
    """TORCH_TEST_ENV, each value overridden by the environment's."""
    return {k: os.environ.get(k, v) for k, v in TORCH_TEST_ENV.items()}


@dataclass
class Proc:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    run_id: int | None = None
    extra: dict = field(default_factory=dict)


def base_env(cache_dir: Path | None = None) -> dict[str, str]:
    """The environment every child gets: ours minus anything that would change capture."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COMPDIAG_", "TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE",
                                "TORCHDYNAMO_", "TORCHINDUCTOR_", "PYTHONPATH"))}
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONHASHSEED"] = "0"
    env.update(torch_test_env())
    if cache_dir is not None:
        env["TORCHINDUCTOR_CACHE_DIR"] = str(cache_dir)
    return env


def shared_cache() -> Path:
    """The Inductor cache dir shared by every test not about caching in this pytest session
    (one cold compile of a kernel for the whole suite, whichever worker needs it first)."""
    return Path(os.environ[SHARED_CACHE_ENV])


def run_cmd(args: list[str], *, env: dict[str, str], cwd: Path | str | None = None,
            stdin: str | None = None, timeout: int = TIMEOUT) -> Proc:
    p = subprocess.run(args, env=env, cwd=cwd, input=stdin if stdin is not None else "",
                       capture_output=True, text=True, timeout=timeout)
    return _proc(args, p.returncode, p.stdout, p.stderr)


class WarmPython:
    """`python SCRIPT` and `python -m MODULE` runs of one environment, forked from one warm
    interpreter (compdiag/bisect/warm.py, bisect's server: torch and Inductor imported once)
    instead of each importing torch again: about 5 CPU s a run (benchmarks/test_time.md,
    round 4). For the test_minify_e2e runs that need no fresh interpreter: `compdiag minify`
    and the plain runs of the repros it writes. Thread-safe (the pipelines run side by side).

    A run goes to the server only when warm.eligible says a fork cannot behave differently
    (this interpreter, a script that does not touch os.environ) and its environment is the
    server's (torch read it at import); otherwise, or when the server failed, `run_cmd`.
    `-I` is dropped from a forked run's argv: the server's environment has no PYTHONPATH
    and this venv no user site, so what -I would hide is not there; the forked run's
    sys.path[0] is its script's folder (the repro's work dir) and its hash seed the server's
    (PYTHONHASHSEED=0, one draw of -I's random one). Exit statuses: 128+N for signal N."""

    def __init__(self, env: dict[str, str]) -> None:
        import threading

        from compdiag.bisect.warm import WarmServer

        self.env = dict(env)
        self.server = WarmServer(self.env)
        self.lock = threading.Lock()
        self.next_id = 0

    def run(self, args: list[str], *, env: dict[str, str], cwd: Path,
            timeout: int = TIMEOUT) -> Proc:
        import tempfile

        from compdiag.bisect.warm import eligible

        argv = [a for a in args[1:] if a != "-I"]
        if env != self.env or self.server.failed or \
                not eligible([args[0], *argv], Path(cwd))[0]:
            return run_cmd(args, env=env, cwd=cwd, timeout=timeout)
        with tempfile.TemporaryDirectory(prefix="cdtest-warm-") as tmp:
            out, err = Path(tmp) / "out", Path(tmp) / "err"
            with self.lock:
                self.next_id += 1
                rid = self.next_id
                self.server.send({"id": rid, "argv": argv, "cwd": str(cwd), "env": env,
                                  "out": str(out), "err": str(err)})
            end = time.monotonic() + timeout
            while True:
                with self.lock:
                    self.server.pump()
                    rc = self.server.rcs.pop(rid, None)
                    failed = self.server.failed
                if rc is not None:
                    break
                if failed:   # the server is gone: this run starts fresh
                    return run_cmd(args, env=env, cwd=cwd, timeout=timeout)
                if time.monotonic() > end:
                    with self.lock:
                        self.server.send({"kill": rid})
                    raise subprocess.TimeoutExpired(args, timeout)
                time.sleep(0.05)
            return _proc(args, rc, out.read_text(errors="replace"),
                         err.read_text(errors="replace"))

    def close(self) -> None:
        self.server.close()


def _proc(args: list[str], returncode: int, stdout: str, stderr: str) -> Proc:
    m = _SUMMARY.search(stderr)
    return Proc(args, returncode, stdout, stderr, int(m.group(1)) if m else None)


@dataclass
class Launch:
    """A `compdiag run` started in the background (see Session.start)."""
    args: list[str]
    popen: subprocess.Popen
    out: Path
    err: Path
    result: Proc | None = None

    def wait(self, timeout: int = TIMEOUT) -> Proc:
        if self.result is None:
            try:
                code = self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                raise
            self.result = _proc(self.args, code, self.out.read_text(), self.err.read_text())
        return self.result


def compdiag_args(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "compdiag", *map(str, args)]


@dataclass
class Session:
    """One store and one Inductor cache for the whole test session."""
    root: Path
    store: Path
    cache: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = base_env(self.cache)
        env.update(extra)
        return env

    def compdiag(self, *args: str | Path, env: dict[str, str] | None = None,
                 cwd: Path | str | None = None, stdin: str | None = None) -> Proc:
        return run_cmd(compdiag_args(*args), env=env or self.env(), cwd=cwd, stdin=stdin)

    def run(self, script: str | Path, *args: str, store: Path | None = None,
            env: dict[str, str] | None = None, cwd: Path | str | None = None,
            stdin: str | None = None) -> Proc:
        return self.compdiag("run", "--store", store or self.store, script, *args,
                             env=env, cwd=cwd, stdin=stdin)

    def start(self, name: str, script: str | Path, *args: str,
              env: dict[str, str] | None = None) -> Launch:
        """Start `compdiag run SCRIPT` without waiting: the expensive compile scenarios run
        side by side (the suite's wall time is theirs), each fixture waits for its own."""
        cmd = compdiag_args("run", "--store", self.store, script, *args)
        out, err = self.root / f"{name}.stdout", self.root / f"{name}.stderr"
        with out.open("w") as o, err.open("w") as e:
            popen = subprocess.Popen(cmd, env=env or self.env(), cwd=self.root,
                                     stdin=subprocess.DEVNULL, stdout=o, stderr=e)
        return Launch(cmd, popen, out, err)

    def show(self, run_id: int | str | None = None, store: Path | None = None) -> dict:
        args = ["show", "--store", store or self.store, "--json"]
        if run_id is not None:
            args.insert(1, str(run_id))
        p = self.compdiag(*args)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)


# -- hand-fed stores: trace-shaped records through the Ingestor, no compile ------------------
def fed_run(tmp_path: Path, source: str, writer: Any = None) -> tuple[Path, Any, int, Any]:
    """(user file, Writer, run id, Ingestor) of one new run of model.py holding `source`,
    into tmp_path/s.db (or `writer`'s store)."""
    from compdiag.ingest.ingestor import Ingestor
    from compdiag.store.writer import Writer

    user = tmp_path / "model.py"
    user.write_text(source)
    w = writer or Writer(tmp_path / "s.db")
    run_id = w.begin_run(source="run", argv=[str(user)], cwd=str(tmp_path))
    return user, w, run_id, Ingestor(w, run_id)


def end_fed_run(w: Any, ing: Any, run_id: int, user: Path, first_line: int,
                ids: dict[str, int] | None = None, co_name: str = "f", **metrics: Any) -> int:
    """Close a hand-fed compile (its compilation_metrics: `co_name` of `user` at
    `first_line`) and the run; the run id."""
    from compdiag.ingest.sources import keep_sources

    ids = ids or {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    ing.record({"compilation_metrics": {"co_name": co_name, "co_filename": str(user),
                                        "co_firstlineno": first_line, **metrics}, **ids}, None)
    ing.flush()
    keep_sources(w, run_id)  # as capture does when a run ends
    w.end_run(run_id, exit_code=0, status="done")
    return run_id


class FakeCapture:
    """What a capture/ module's install() needs of capture/hooks.py's Capture, to test one
    module in-process: the Ingestor, not paused, and each hook run at once (no lock, no
    backlog, no fail-open: a test sees the exception)."""

    paused_depth = 0

    def __init__(self, ing: Any) -> None:
        self.ing = ing

    def guarded(self, _what: str, fn: Any, *args: Any) -> None:
        fn(*args)
