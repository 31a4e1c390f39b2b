"""Running probes: each one is the user's command in its own process group, with the
TORCH_BISECT_* protocol in its environment and compdiag's instrumentation on PYTHONPATH.

Every file a probe makes goes under one temp dir (Inductor's cache dir included, shared by the
probes of one bisect so C++ kernels compile once); that dir is removed at the end, on errors
and on Ctrl-C too. No bisect status file is ever written (the protocol goes through env vars),
so nothing can alter a later torch.compile run (pytorch issue #143453)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from compdiag.bisect.search import Evidence, Probe
from compdiag.bisect.warm import WarmServer, eligible

HOOK_DIR = Path(__file__).resolve().parent / "hook"
# Anything that would steer a probe other than the way the search says.
_STRIP = ("TORCH_BISECT_", "TORCH_COMPILE_BACKEND", "COMPDIAG_BISECT_")


@dataclass
class Finished:
    probe: Probe
    rc: int
    wall_s: float
    good: bool
    evidence: Evidence
    stderr_tail: str
    speculative: bool = False


@dataclass
class _Running:
    probe: Probe
    proc: subprocess.Popen | None   # None: a child of the warm server
    started: float
    log: Path
    out: Path
    speculative: bool = False
    warm_id: int | None = None


@dataclass
class Oracle:
    """good = the command exited 0; with `bad_rc`, only that exit status counts as bad (a
    captured run's own failure); with `bad_text`, its stderr must also mention that text."""
    bad_rc: int | None = None
    bad_text: str | None = None

    def good(self, rc: int, stderr_tail: str, output: Path | None = None) -> bool:
        """`output`: the probe's whole output, searched where the tail does not mention the
        text (a C++ compile error's compiler output runs for pages after the exception's
        `InductorError: CppCompileError` line: probes36f bfp_frexp_quant, the run's own
        failure taken for another one)."""
        if self.bad_rc is None:
            return rc == 0
        if rc != self.bad_rc:
            return True
        if not self.bad_text or self.bad_text in stderr_tail:
            return False
        return output is None or not _mentions(output, self.bad_text)


@dataclass
class Runner:
    cmd: list[str]
    cwd: Path
    oracle: Oracle = field(default_factory=Oracle)
    jobs: int = 2
    tmp: Path | None = None
    running: dict[Probe, _Running] = field(default_factory=dict)
    launched: int = 0
    cancelled: int = 0
    warm: bool = True
    timeout_s: float | None = None   # a probe running longer is killed and counts as rc 124
    warm_note: str = ""
    warm_probes: int = 0
    _server: WarmServer | None = None
    seed_kernels: bool = True   # link the user's compiled kernels into the probes' cache
    seeded: int = 0
    seeded_headers: int = 0   # precompiled C++ headers linked where the probes look for them

    def __enter__(self) -> "Runner":
        self.tmp = Path(tempfile.mkdtemp(prefix="compdiag-bisect-"))
        (self.tmp / "inductor-cache").mkdir()
        if self.seed_kernels:
            self.seeded = seed_kernel_cache(self.tmp / "inductor-cache", user_cache_dir())
            self.seeded_headers = seed_header_cache(self.tmp)
        if self.warm:
            ok, why = eligible(self.cmd, self.cwd)
            self.warm_note = why
            if ok:
                env = self.env(Probe("eager"), self.tmp / "warm.jsonl")
                for key in Probe("eager").env():
                    env.pop(key, None)
                self._server = WarmServer(env)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for probe in list(self.running):
            self.kill(probe)
        if self._server is not None:
            self._server.close()
            self._server = None
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def env(self, probe: Probe, log: Path | None) -> dict[str, str]:
        assert self.tmp is not None
        env = {k: v for k, v in os.environ.items() if not k.startswith(_STRIP)}
        env.update(probe.env())
        env["TORCHINDUCTOR_CACHE_DIR"] = str(self.tmp / "inductor-cache")
        env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")  # no compile-worker pool to start
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["TMPDIR"] = str(self.tmp)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(HOOK_DIR)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        if log is not None:
            env["COMPDIAG_BISECT_LOG"] = str(log)
        return env

    def start(self, probe: Probe, *, speculative: bool = False) -> None:
        assert self.tmp is not None
        self.launched += 1
        n = self.launched
        log = self.tmp / f"probe-{n}.jsonl"
        out = self.tmp / f"probe-{n}.out"
        server = self._server
        if server is not None:
            # Importing torch is most of a small probe: the first probes wait for the warm
            # interpreter rather than import torch beside it on the same cores.
            deadline = time.monotonic() + 300
            while not server.ready and not server.failed and time.monotonic() < deadline:
                server.pump()
                time.sleep(0.05)
            if server.failed or not server.ready:
                self.warm_note = "the warm interpreter could not start"
                server.close()
                self._server = server = None
        if server is not None and server.ready:
            self.warm_probes += 1
            server.send({"id": n, "argv": self.cmd[1:], "cwd": str(self.cwd),
                         "env": self.env(probe, log), "out": str(out)})
            self.running[probe] = _Running(probe, None, time.monotonic(), log, out,
                                           speculative, warm_id=n)
            return
        with open(out, "wb") as fh:
            proc = subprocess.Popen(self.cmd, cwd=self.cwd, env=self.env(probe, log),
                                    stdin=subprocess.DEVNULL, stdout=fh, stderr=fh,
                                    start_new_session=True)
        self.running[probe] = _Running(probe, proc, time.monotonic(), log, out, speculative)

    def kill(self, probe: Probe) -> None:
        r = self.running.pop(probe, None)
        if r is None:
            return
        self.cancelled += 1
        if r.proc is not None:
            _kill_group(r.proc)
        elif self._server is not None:
            self._server.send({"kill": r.warm_id})

    def wait_any(self, poll_s: float = 0.05,
                 tick: Callable[[], None] | None = None) -> list[Finished]:
        """Block until at least one running probe ends; return those that ended."""
        while True:
            done = []
            if self._server is not None:
                self._server.pump()
                if self._server.failed:  # its probes start again, each in a fresh python
                    self.warm_note = "the warm interpreter stopped"
                    self._server.close()
                    self._server = None
                    for probe, r in list(self.running.items()):
                        if r.proc is None:
                            del self.running[probe]
                            self.launched -= 1
                            self.warm_probes -= 1
                            self.start(probe, speculative=r.speculative)
            for probe, r in list(self.running.items()):
                if r.proc is not None:
                    rc = r.proc.poll()
                else:
                    assert self._server is not None
                    rc = self._server.rcs.pop(r.warm_id, None)
                if rc is None and self.timeout_s is not None and \
                        time.monotonic() - r.started > self.timeout_s:
                    self.kill(probe)  # (takes it out of `running`)
                    self.cancelled -= 1
                    self.running[probe] = r
                    rc = 124
                if rc is None:
                    continue
                del self.running[probe]
                wall = time.monotonic() - r.started
                tail = _tail(r.out)
                rc = 128 - rc if rc < 0 else rc
                lines = r.log.read_text(errors="replace").splitlines() if r.log.exists() else []
                done.append(Finished(probe, rc, wall, self.oracle.good(rc, tail, r.out),
                                     Evidence.from_lines(lines), tail, r.speculative))
            if done or not self.running:
                return done
            if tick is not None:
                tick()
            time.sleep(poll_s)


def default_cache_dir(tmp: Path | None = None) -> Path:
    """Inductor's default cache dir under the temp dir `tmp` (the user's own, `tempfile`'s, when
    None), as torch computes it in torch/_inductor/runtime/cache_dir_utils.py, without
    importing torch."""
    import getpass
    import re

    try:
        user = getpass.getuser()
    except (KeyError, ModuleNotFoundError, OSError):
        user = f"uid_{os.getuid()}"
    base = tmp if tmp is not None else Path(tempfile.gettempdir())
    return base / ("torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", user))


def user_cache_dir() -> Path:
    """The Inductor cache dir the user's own torch.compile runs use."""
    env = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if env:
        return Path(env).resolve()
    return default_cache_dir()


# What of the user's Inductor cache the probes reuse: compiled kernels (and the ISA checks'
# builds), each file named by a hash of what it was built from (source, compiler and flags).
# The precompiled C++ headers are not in this dir in torch 2.13: see seed_header_cache.
# Never the caches of whole graphs (CompilerBisector's rule, and FX-graph caching is off in
# probes: a graph-cache hit would skip the applications being counted), nor another bisect's.
_NOT_SEEDED = frozenset({"fxgraph", "aotautograd", "bisect", "locks"})
SEED_LIMIT = 50000  # files: linking is ~20 us each; a larger cache is linked this far


def seed_kernel_cache(dest: Path, user_cache: Path, limit: int = SEED_LIMIT) -> int:
    """Hard-link the user's compiled kernels into the probes' Inductor cache dir `dest`, so the
    first Inductor probe does not compile again the C++ (or Triton) kernels the user's own run
    of the program compiled: on a CPU that is most of a cold probe (the relu scenario: 17 s of
    CPU cold, 8 s with its kernels cached). Links, not copies, and nothing is written in the
    user's cache: Inductor writes a cache file elsewhere and renames it into place, never into
    an existing one, so a probe cannot change the user's files. Returns the files linked; 0
    when there is no cache or no link can be made (another file system: the probes then
    compile as before)."""
    if not user_cache.is_dir() or user_cache.resolve() == dest.resolve():
        return 0
    linked = 0
    try:
        tops = [e for e in os.scandir(user_cache) if e.is_dir(follow_symlinks=False)
                and e.name not in _NOT_SEEDED]
    except OSError:
        return 0
    for top in tops:
        for root, dirs, files in os.walk(top.path):
            rel = Path(root).relative_to(user_cache)
            target = dest / rel
            target.mkdir(parents=True, exist_ok=True)
            for name in files:
                if name.endswith((".lock", ".tmp")):
                    continue
                try:
                    os.link(os.path.join(root, name), target / name, follow_symlinks=False)
                except FileExistsError:
                    continue
                except OSError:
                    return linked      # another file system, or not ours to link
                linked += 1
                if linked >= limit:
                    return linked
    return linked


def seed_header_cache(probes_tmp: Path, limit: int = SEED_LIMIT) -> int:
    """Hard-link the user's precompiled C++ headers (Inductor's `.h`/`.h.gch`, about 150 MB
    each) to where the probes' Inductor looks for them. Inductor keeps them in
    `default_cache_dir()/precompiled_headers` whatever TORCHINDUCTOR_CACHE_DIR says
    (torch/_inductor/codecache.py `_HEADER_DIR`), that is under TMPDIR, and the probes' TMPDIR
    is the bisect's temp dir: so the first Inductor probe built the header again, g++ on
    ATen's whole vectorized headers, 9 of its 19 CPU seconds on the relu scenario (38 s wall
    against 21 s with the header linked). Each file is named by a hash of the preprocessed
    header, the compiler's version and its flags, so a probe only ever uses a header built
    from what it would build itself; one it lacks it builds into a new file of its own."""
    src = default_cache_dir() / "precompiled_headers"
    dest = default_cache_dir(probes_tmp) / "precompiled_headers"
    if not src.is_dir() or src.resolve() == dest.resolve():
        return 0
    linked = 0
    try:
        names = [e.name for e in os.scandir(src) if e.is_file(follow_symlinks=False)
                 and e.name.endswith((".h", ".h.gch"))]
    except OSError:
        return 0
    dest.mkdir(parents=True, exist_ok=True)
    for name in sorted(names)[:limit]:
        try:
            os.link(src / name, dest / name, follow_symlinks=False)
        except FileExistsError:
            continue
        except OSError:
            return linked          # another file system: the probes build it as before
        linked += 1
    return linked


def stale_bisect_status() -> Path | None:
    """A status file CompilerBisector left behind (pytorch issue #143453): while it exists,
    every torch.compile of this user runs with the bisector's backend and subsystem settings."""
    path = user_cache_dir() / "bisect" / "bisect_status.txt"
    return path if path.is_file() else None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _mentions(path: Path, text: str, chunk: int = 1 << 20) -> bool:
    """Whether a file holds `text`, read a chunk at a time (a chunk's end kept for a match
    across two)."""
    needle, keep = text.encode(), b""
    try:
        with open(path, "rb") as fh:
            while block := fh.read(chunk):
                if needle in keep + block:
                    return True
                keep = block[-len(needle):]
    except OSError:
        pass
    return False


def _tail(path: Path, limit: int = 8000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            return fh.read().decode(errors="replace")
    except OSError:
        return ""
