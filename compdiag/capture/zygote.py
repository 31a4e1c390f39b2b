"""A fork server for `compdiag run`'s capture children (an internal, test-only option: see
docs/architecture.md, "The fork server"). Importing torch, Dynamo and Inductor is most of a
small capture's CPU (about 8 s of 9 for a corpus case), and a test session starts hundreds of
captures; this process imports them once and forks one capture child per request.

Started as `python -m compdiag.capture.zygote SOCKET`; it serves until its stdin closes.
A request (capture/zygote_client.py) carries the child's argv, environment and cwd as one JSON
line, and its stdin, stdout, stderr and pass_fds as descriptors (SCM_RIGHTS). The answer is
{"pid": N}, or {"refused": WHY} when a fork could not behave as a fresh interpreter would (the
client then starts the child the normal way), then {"status": S}: the raw wait status, which
the client turns into what Popen.wait() returns.

A fork is faithful only where the fresh interpreter would have imported torch the same way:
torch, its compilers and libraries read many variables at import (config entries with env
names, TORCH_LOGS, TORCHINDUCTOR_COMPILE_THREADS, OMP_NUM_THREADS, TMPDIR for Inductor's
header dir), so the request's `fingerprint` must equal the server's (every variable torch or
Python may read at start, but the few verified to be read later). And the server must hold no
thread but the one torch's import starts.

What stays different, and why this is a test option and not the users' path: the child is
in the server's session and process group, not `compdiag run`'s, so a terminal's Ctrl-C (sent
to the foreground group) does not reach it (SIGTERM does: run_program forwards it); its
PYTHONHASHSEED is the server's when the request sets none; it is not the runner's child
(the server reaps it and reports the status)."""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import sys
import threading
import time

_real_exit = os._exit  # capture.child wraps os._exit in the child; the server's end is its own

# What every capture child imports before the program runs (Capture.install imports the same
# torch modules outside compdiag's own time). compdiag's capture modules are NOT preloaded:
# the child imports them itself, so capture's counted start-up time is what a fresh one's is.
PRELOAD = ("torch", "torch._dynamo", "torch._dynamo.convert_frame", "torch._logging._internal",
           "torch._inductor.compile_fx")

# Read at start-up by Python, torch or the libraries it loads (a different value would need a
# different import); every variable with one of these prefixes counts, but LAZY.
# CXX: Inductor's compiler (config.cpp.cxx, read at import), which also proved the vector ISA
# (decide_vector_isa).
READ_AT_START = ("TORCH", "PYTORCH", "TRITON", "OMP_", "KMP_", "GOMP_", "MKL", "CUDA", "NCCL",
                 "PYTHON", "LD_", "LC_", "LANG", "TMPDIR", "TEMP", "TMP", "CXX")
# Read when used, never at import (torch 2.13: runtime/cache_dir_utils.cache_dir() reads
# TORCHINDUCTOR_CACHE_DIR at each call; the child rebuilds its stdio for PYTHONUNBUFFERED).
LAZY = frozenset({"TORCHINDUCTOR_CACHE_DIR", "PYTHONUNBUFFERED"})
# The hash seed is fixed at start: a request that sets none wants a random seed, and the
# server's (fixed) one is as good a draw; a request that sets one must match it.
HASH_SEED = "PYTHONHASHSEED"


def decide_vector_isa() -> None:
    """Inductor's choice of the CPU's vector ISA, made here once for every forked child.

    Torch 2.13 proves each ISA the CPU claims (AVX-512's bf16, VNNI, AMX) by building a probe
    kernel with g++ into the cache dir and dlopening it in a `python -c` child
    (cpu_vec_isa.valid_vec_isa_list, cached per process): three such children, about 1 CPU s,
    in every process that compiles a C++ kernel, and three g++ builds where the cache dir is
    fresh. The answer depends on the CPU, the compiler and torch's config at import, which a
    child shares with this process (the fingerprint), not on the cache dir; a child that
    inherits it compiles the same kernels with the same flags. Failure is left to the child:
    it would probe again, as a fresh interpreter does."""
    try:
        from torch._inductor.cpu_vec_isa import valid_vec_isa_list

        valid_vec_isa_list()
    except Exception:  # noqa: BLE001
        pass


def fingerprint(env: dict[str, str]) -> dict[str, str]:
    """The part of an environment a fresh interpreter reads before the program runs."""
    return {k: v for k, v in env.items() if k.startswith(READ_AT_START) and k not in LAZY}


def mismatch(request_env: dict[str, str], own_env: dict[str, str]) -> str | None:
    """Why a child with `request_env` would not import torch as this server did (None: same)."""
    want, have = fingerprint(request_env), fingerprint(own_env)
    if HASH_SEED not in want:
        have.pop(HASH_SEED, None)
    diff = sorted(k for k in set(want) | set(have) if want.get(k) != have.get(k))
    return f"environment differs: {', '.join(diff[:5])}" if diff else None


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


class Server:
    def __init__(self, path: str, log) -> None:
        self.log = log
        self.env = dict(os.environ)
        import importlib

        importlib.import_module("torch")
        self.baseline = _threads()  # torch's import starts a native thread of its own
        for name in PRELOAD:
            importlib.import_module(name)
        decide_vector_isa()
        # What a fresh capture child would have spent before the program: interpreter start
        # and these imports. A forked child's own clock starts at zero; it counts this too.
        self.start_cpu_s = time.process_time()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(64)
        self.children: dict[int, socket.socket] = {}
        self.note(f"ready pid={os.getpid()} start_cpu_s={self.start_cpu_s:.2f}")

    def note(self, line: str) -> None:
        self.log.write(f"{time.time():.3f} {line}\n")
        self.log.flush()

    def serve(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self.sock, selectors.EVENT_READ, "accept")
        sel.register(sys.stdin, selectors.EVENT_READ, "stdin")
        while True:
            for key, _ in sel.select(timeout=0.05):
                if key.data == "stdin":
                    if not os.read(sys.stdin.fileno(), 4096):
                        self.note("stdin closed: exit")
                        return
                else:
                    conn, _ = self.sock.accept()
                    self.handle(conn, sel)
            self.reap()

    def handle(self, conn: socket.socket, sel: selectors.BaseSelector) -> None:
        fds: list[int] = []
        try:
            conn.settimeout(30)
            req, fds = _read_request(conn)
            why = mismatch(req["env"], self.env)
            if why is None and (threading.active_count() != 1 or _threads() > self.baseline):
                why = f"{_threads()} threads in the server"
            if why is not None:
                self.note(f"refused {why}")
                _send(conn, {"refused": why})
                conn.close()
                return
            pid = os.fork()
            if pid == 0:
                sel.close()
                self.sock.close()
                for other in self.children.values():
                    other.close()
                conn.close()
                _become_child(req, fds, self.start_cpu_s)  # never returns
            self.children[pid] = conn
            self.note(f"forked pid={pid} argv={req['argv'][-1:]}")
            _send(conn, {"pid": pid})
        except Exception as exc:  # noqa: BLE001 - one bad request must not end the server
            self.note(f"bad request: {type(exc).__name__}: {exc}")
            conn.close()
        finally:
            for fd in fds:
                os.close(fd)

    def reap(self) -> None:
        while self.children:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            self.note(f"ended pid={pid} status={status} "
                      f"cpu_s={usage.ru_utime + usage.ru_stime:.2f}")
            try:
                _send(conn, {"status": status})
            except OSError:  # the client is gone (killed): nobody to tell
                pass
            conn.close()


def _send(conn: socket.socket, msg: dict) -> None:
    conn.sendall((json.dumps(msg) + "\n").encode())


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    buf, fds = b"", []
    while not buf.endswith(b"\n"):
        data, got, _, _ = socket.recv_fds(conn, 1 << 20, 64)
        fds.extend(got)
        if not data:
            raise ConnectionError("the client closed before its request ended")
        buf += data
    return json.loads(buf), fds


def _become_child(req: dict, fds: list[int], start_cpu_s: float) -> None:
    """In the forked child: take the request's descriptors, cwd and environment, then run
    capture's child as `python -m compdiag.capture.child ARGV` would, and end as it would."""
    status = 1
    try:
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _place_fds(fds, req["fds"])
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        import tempfile

        tempfile.tempdir = None  # gettempdir() caches; TMPDIR is the request's (fingerprinted)
        _fresh_stdio(req["env"].get("PYTHONUNBUFFERED"))
        _reseed()
        from compdiag.capture import self_time

        self_time.INHERITED_CPU_S = start_cpu_s
        status = _run_as_python(req["argv"])
    except BaseException:  # noqa: BLE001 - the server's own fault before the program ran
        import traceback

        traceback.print_exc()
    _real_exit(status)


def _place_fds(got: list[int], targets: list[int]) -> None:
    """Put each received descriptor at the number the child expects (0, 1, 2, pass_fds),
    out of the way first so that no target overwrites a descriptor still to be placed."""
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 1000) for fd in got]
    for fd in got:
        os.close(fd)
    for fd, target in zip(high, targets):
        os.dup2(fd, target)
        os.close(fd)


def _fresh_stdio(unbuffered: str | None) -> None:
    """sys.stdin/stdout/stderr as a fresh interpreter opens them on the new descriptors (line
    buffered on a tty, stderr always; raw and write-through under PYTHONUNBUFFERED), with the
    server's encoding (LANG, LC_* and PYTHONIOENCODING are fingerprinted)."""
    import io

    raw = bool(unbuffered)

    def text(fd: int, mode: str, old, **kw) -> io.TextIOWrapper:
        binary = io.FileIO(fd, mode, closefd=False) if raw and mode == "wb" else \
            io.open(fd, mode, closefd=False)
        return io.TextIOWrapper(binary, encoding=old.encoding, **kw)

    sys.stdin = sys.__stdin__ = text(0, "rb", sys.stdin, errors=sys.stdin.errors)
    sys.stdout = sys.__stdout__ = text(1, "wb", sys.stdout, errors=sys.stdout.errors,
                                       line_buffering=os.isatty(1), write_through=raw)
    sys.stderr = sys.__stderr__ = text(2, "wb", sys.stderr, errors="backslashreplace",
                                       line_buffering=True, write_through=raw)


def _reseed() -> None:
    """What a fresh interpreter seeds from the OS at import (random reseeds itself at fork):
    numpy's global generator, imported by torch."""
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            np.random.seed()
        except Exception:  # noqa: BLE001
            pass


def _run_as_python(argv: list[str]) -> int:
    """capture.child's main(ARGV), ended as the interpreter ends `python -m
    compdiag.capture.child ARGV`: SystemExit's code (a message is printed and means 1), an
    escaped exception through sys.excepthook and 1, KeyboardInterrupt through the hook and then
    death by SIGINT; then non-daemon threads joined, atexit run, stdio flushed. Returns the
    status (a SIGINT end does not return)."""
    import atexit

    from compdiag.capture import child

    code, interrupted = 0, False
    try:
        child.main(list(argv))
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except KeyboardInterrupt as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
        interrupted = True
    except BaseException as exc:  # noqa: BLE001 - as the interpreter: the hook prints it
        sys.excepthook(type(exc), exc, exc.__traceback__)
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined] - what Py_Finalize does first
    except BaseException:  # noqa: BLE001
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - python ends 120 when stdout cannot be flushed
            code = code or 120
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return code & 0xFF


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        print("usage: python -m compdiag.capture.zygote SOCKET", file=sys.stderr)
        sys.exit(2)
    log = sys.stderr
    try:
        server = Server(argv[0], log)
    except Exception as exc:  # noqa: BLE001 - no server: every client falls back
        log.write(f"could not start: {type(exc).__name__}: {exc}\n")
        sys.exit(1)
    server.serve()


if __name__ == "__main__":
    main(sys.argv[1:])
