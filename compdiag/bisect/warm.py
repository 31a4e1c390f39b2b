"""A warm interpreter for probes: one process imports torch and Inductor once, then forks a
child per probe that runs the program as `python SCRIPT ARGS` would (runpy, argv, sys.path[0],
cwd, environment, exit status). Importing torch and Inductor is most of a small probe's time.

Used only where a fork cannot behave differently from a fresh interpreter (see `eligible`):
CMD is this interpreter running a script or module, the script does not touch os.environ
(a variable set before `import torch` would be missed by an already imported torch), and the
warm process holds a single thread when it forks.

Protocol, one JSON object per line: the driver writes {"id", "argv", "cwd", "env", "out"}
and optionally "err" (or {"kill": id}); the server answers {"ready": true} once, then
{"id", "pid"} when a child started and {"id", "rc"} when it ended (128+N when killed by signal
N). The child's stdout and stderr go to the file "out" names, or stderr to "err" when given (a
caller that reads the two apart, as the test suite's runs of minify's repros do)."""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import sys
from pathlib import Path

_PRELOAD = ("torch", "torch._dynamo", "torch._inductor.compile_fx",
            "torch._inductor.compiler_bisector", "torch._functorch.aot_autograd")
_SCRIPT_FLAGS = {"-u", "-B"}


def eligible(cmd: list[str], cwd: Path) -> tuple[bool, str]:
    """Whether CMD may run in a forked warm interpreter, and why not."""
    if len(cmd) < 2:
        return False, "not a python command"
    exe = cmd[0]
    try:
        same = os.path.samefile(exe if os.sep in exe else (_which(exe) or exe), sys.executable)
    except OSError:
        same = False
    if not same:
        return False, "not this python interpreter"
    args = cmd[1:]
    while args and args[0] in _SCRIPT_FLAGS:
        args = args[1:]
    if not args:
        return False, "no script"
    if args[0] == "-m":
        return (len(args) > 1, "module")
    if args[0].startswith("-"):
        return False, f"python option {args[0]}"
    script = (cwd / args[0])
    try:
        text = script.read_text(errors="replace")
    except OSError:
        return False, "script not readable"
    if re.search(r"environ|putenv|importlib\.reload|multiprocessing", text):
        return False, "the script touches the environment or processes"
    return True, "script"


def _which(name: str) -> str | None:
    import shutil

    return shutil.which(name)


class WarmServer:
    """The driver's handle on the server process."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "compdiag.bisect.warm"],
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, start_new_session=True,
                                     text=True, bufsize=1)
        os.set_blocking(self.proc.stdout.fileno(), False)  # type: ignore[union-attr]
        self.ready = False
        self.failed = False
        self._buf = ""
        self.pids: dict[int, int] = {}
        self.rcs: dict[int, int] = {}

    def send(self, msg: dict) -> None:
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            self.failed = True

    def pump(self) -> None:
        try:
            chunk = self.proc.stdout.read()  # type: ignore[union-attr]
        except (OSError, TypeError):
            chunk = None
        if chunk:
            self._buf += chunk
        while "\n" in self._buf:
            line, self._buf = self._buf.split("\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("ready"):
                self.ready = True
            elif msg.get("unfit"):
                self.failed = True
            elif "rc" in msg:
                self.rcs[msg["id"]] = msg["rc"]
            elif "pid" in msg:
                self.pids[msg["id"]] = msg["pid"]
        if self.proc.poll() is not None:
            self.failed = True

    def close(self) -> None:
        """End of input: the server kills the probes it still runs, then exits."""
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()


# -- the server side ------------------------------------------------------------------------
def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def run_as_main(args: list[str]) -> object:
    """Run `python ARGS` (SCRIPT ... or -m MODULE ...) in this interpreter, as python would
    (argv, sys.path[0], __main__); the SystemExit code, or 1 after printing the traceback."""
    import runpy

    try:
        if args[0] == "-m":
            sys.argv = [args[1], *args[2:]]
            sys.path[0] = os.getcwd()
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(args)
            sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
            runpy.run_path(args[0], run_name="__main__")
    except SystemExit as exc:
        return exc.code
    except BaseException:  # noqa: BLE001 - as the interpreter would: traceback, status 1
        import traceback

        traceback.print_exc()
        return 1
    return 0


def _child(req: dict) -> None:
    """In the forked child: become the program."""
    import atexit

    os.setsid()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    fd = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    err = os.open(req["err"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600) \
        if req.get("err") else fd
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fd, 1)
    os.dup2(err, 2)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    sys.stdin = open(0, closefd=False)
    hook = sys.modules.get("compdiag_bisect_hook")
    if hook is not None:
        try:
            hook.refresh()  # re-reads TORCH_BISECT_* for this probe
        except BaseException:  # noqa: BLE001 - fail open, as the hook itself does
            pass
    args = list(req["argv"])
    while args and args[0] in _SCRIPT_FLAGS:
        args = args[1:]
    code = run_as_main(args)
    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001
        pass
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code & 0xFF
    else:
        print(code, file=sys.stderr)
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass
    os._exit(status)


def serve() -> None:
    import importlib
    import threading

    importlib.import_module("torch")
    # `import torch` starts a native thread of its own; torch's DataLoader forks workers after
    # it all the time (torch resets its pools in pthread_atfork handlers). Any other thread,
    # Python or native, would make a fork unsafe.
    baseline = _threads()
    for name in _PRELOAD:
        importlib.import_module(name)
    # the CPU's vector ISA, proved once here and not again in every probe (about 1 CPU s each)
    from compdiag.capture.zygote import decide_vector_isa

    decide_vector_isa()
    out = sys.stdout
    if _threads() != baseline or threading.active_count() != 1:
        out.write(json.dumps({"unfit": f"{_threads()} threads after importing torch"}) + "\n")
        out.flush()
        return
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    children: dict[int, int] = {}  # pid -> id
    sel = selectors.DefaultSelector()
    sel.register(sys.stdin, selectors.EVENT_READ)
    buf = ""
    while True:
        events = sel.select(timeout=0.05)
        for _ in events:
            chunk = os.read(sys.stdin.fileno(), 65536).decode()
            if not chunk:  # the driver is done (or gone): so are its probes
                for pid in children:
                    _killpg(pid)
                for pid in children:
                    try:
                        os.waitpid(pid, 0)
                    except ChildProcessError:
                        pass
                return
            buf += chunk
        while "\n" in buf:
            line, buf = buf.split("\n", 1)
            req = json.loads(line)
            if "kill" in req:
                for pid, rid in children.items():
                    if rid == req["kill"]:
                        _killpg(pid)
                continue
            pid = os.fork()
            if pid == 0:
                sel.close()
                _child(req)
            children[pid] = req["id"]
            out.write(json.dumps({"id": req["id"], "pid": pid}) + "\n")
            out.flush()
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            rid = children.pop(pid, None)
            if rid is None:
                continue
            rc = os.waitstatus_to_exitcode(status)
            out.write(json.dumps({"id": rid, "rc": 128 - rc if rc < 0 else rc}) + "\n")
            out.flush()


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


if __name__ == "__main__":
    serve()
