"""The user's program, run as `python script.py` would run it, with capture installed first.

Started by `compdiag run` as `python -m compdiag.capture.child [-m] TARGET ARGS...`; the
store path and run id arrive in the environment. Whatever happens inside compdiag, the
program's own output and exit status are what plain python would give."""

from __future__ import annotations

import atexit
import builtins
import io
import os
import runpy
import sys
import time
import traceback
import zipfile
from types import TracebackType

ENV_STORE = "COMPDIAG_STORE_PATH"
ENV_RUN = "COMPDIAG_RUN_ID"
# A file the parent made for faulthandler's dump: a native crash (SIGSEGV, SIGABRT of a C++
# exception or a failed assertion, ...) leaves the Python stack there, not on the user's
# stderr, where plain python would print nothing of it.
ENV_FAULT_FILE = "COMPDIAG_FAULT_FILE"
_fault_file = None  # kept open for faulthandler, which writes to its descriptor


def _start_capture():
    """Open the store and arrange for the hooks; on any fault run the program uncaptured.
    Importing compdiag's capture (this module imports none of it before here, so all of it is
    counted) and opening the store count as capture's own time, as the hooks do. The hooks
    are installed when the program imports torch (capture/after_import.py), never before:
    what the program does first reaches torch as under plain python (probes45c
    sampler_cxx_clang_fallback_eager: `os.environ["CXX"] = ...` before `import torch`, which
    Inductor's config reads at its import, was ignored under compdiag run, and the program's
    fallback never ran)."""
    started = time.thread_time()
    try:
        from compdiag.capture.after_import import after_import
        from compdiag.capture.hooks import Capture
        from compdiag.ingest.ingestor import Ingestor
        from compdiag.store.writer import Writer

        # commits every half second: a SIGKILL loses at most that much of the capture, and
        # a run on a loaded machine (long in wall time) does not pay a commit per 0.2 s
        writer = Writer(os.environ[ENV_STORE], background=True, flush_interval=0.5)
        run_id = int(os.environ[ENV_RUN])
        capture = Capture(Ingestor(writer, run_id))
        capture.self_time.add(time.thread_time() - started)
        after_import("torch", lambda torch: _install(capture, writer, run_id, torch))
        atexit.register(_finish, capture)
        _watch_os_exit(capture)
        return capture
    except Exception as exc:  # noqa: BLE001 - fail open
        print(f"compdiag: capture disabled ({type(exc).__name__}: {exc})", file=sys.stderr)
        return None


def _install(capture, writer, run_id: int, torch) -> None:
    """The hooks and the command's checks, once the program imported torch; on any fault the
    program runs on uncaptured from here."""
    try:
        capture.install()
        writer.update_run(run_id, torch_version=torch.__version__)
        from compdiag.formats.torch_versions import note

        untested = note(torch.__version__)
        if untested:
            print(f"compdiag: {untested}", file=sys.stderr)
        if os.environ.get("COMPDIAG_CHECK_ACCURACY"):
            capture.install_accuracy_check(_float_env("COMPDIAG_RTOL"), _float_env("COMPDIAG_ATOL"))
        if os.environ.get("COMPDIAG_PERF"):  # `compdiag perf`: eager vs compiled per graph
            from compdiag.capture.perf_timing import install as install_perf_timing

            install_perf_timing(capture)
        if os.environ.get("COMPDIAG_MODE"):
            _force_mode(torch, os.environ["COMPDIAG_MODE"])
        if os.environ.get("COMPDIAG_TRY"):  # `compdiag perf --try`: a setting from outside
            from compdiag.capture.try_settings import apply_from_env

            applied = apply_from_env(torch)
            if applied:
                writer.warn(run_id, "compdiag perf --try applied: " + ", ".join(applied))
    except Exception as exc:  # noqa: BLE001 - fail open
        print(f"compdiag: capture disabled ({type(exc).__name__}: {exc})", file=sys.stderr)


# Signals that end a process by default and that faulthandler.enable() does not cover (it
# covers SIGSEGV, SIGFPE, SIGABRT, SIGBUS, SIGILL; SIGINT is Python's KeyboardInterrupt): a
# scheduler's preemption or time limit (SIGTERM, SLURM's SIGUSR1/2), a closed terminal.
STOP_SIGNALS = ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2")


def _enable_faulthandler() -> None:
    """faulthandler into the parent's side file, unless the program's environment enabled it
    already (PYTHONFAULTHANDLER, -X faulthandler: then it writes to stderr, as plain python);
    and for the STOP_SIGNALS, so that a SIGTERM says which line was running (issue 29 §3)."""
    global _fault_file
    path = os.environ.pop(ENV_FAULT_FILE, None)
    if not path:
        return
    try:
        import faulthandler

        if faulthandler.is_enabled():
            return
        _fault_file = open(path, "w", encoding="utf-8")  # noqa: SIM115 - open for the process
        faulthandler.enable(file=_fault_file, all_threads=True)
        _register_stop_signals(faulthandler)
    except Exception:  # noqa: BLE001 - fail open
        pass


def _register_stop_signals(faulthandler) -> None:
    """Dump the Python stack of the thread that takes each STOP_SIGNALS signal whose
    disposition is still the default (Linux gives a process-directed signal to the main
    thread first), then chain to it (chain=True re-raises with the default disposition), so the
    process dies by the same signal with the same exit status as under plain python. Only
    the default: an inherited SIG_IGN stays ignored, and a handler the program installs later
    (signal.signal) replaces this one, so theirs wins; Python's signal.getsignal still says
    SIG_DFL."""
    import signal

    for name in STOP_SIGNALS:
        sig = getattr(signal, name, None)
        try:
            if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
                # the signal's own thread only: a dump of every thread walks stacks other
                # threads are changing (the one holding the GIL), which crashed the process
                # by SIGSEGV in 3 of 6 runs of a SIGTERM during a compile (exit 139, not 143)
                faulthandler.register(sig, file=_fault_file, all_threads=False, chain=True)
        except (OSError, RuntimeError, ValueError):  # fail open, signal by signal
            continue


def _watch_os_exit(capture) -> None:
    """os._exit(N != 0) ends the process without an exception: record where it was called
    (this process only; a forked child inherits the wrapper and passes straight through)."""
    original = os._exit
    pid = os.getpid()

    def _exit(status: int) -> None:
        if status != 0 and os.getpid() == pid:
            frames = traceback.extract_stack()[:-1]
            from compdiag.capture.failures import record_exit_call

            capture.guarded("os._exit", record_exit_call, capture.ing, "os._exit", status,
                            frames)
            try:
                with capture.lock:
                    capture.tick()  # the backlog and the run's device
                    capture.ing.commit()
            except Exception:  # noqa: BLE001
                pass
        original(status)

    _exit.__wrapped__ = original  # type: ignore[attr-defined]
    _exit.__name__, _exit.__doc__ = original.__name__, original.__doc__
    os._exit = _exit


def _float_env(name: str) -> float | None:
    value = os.environ.get(name)
    return float(value) if value else None


def _force_mode(torch, mode: str) -> None:
    """`compdiag run --mode M`: every compile by Inductor compiles with mode M (the user's
    `options` dropped, as torch refuses both; kept for M = default, which sets nothing).

    The patch point is the Inductor backend torch.compile builds, not torch.compile itself:
    Dynamo knows torch.compile by identity (a no-op where a traced function calls it, as
    transformers' models do), and a replacement would be traced instead and break the graph
    in compdiag's file (the transparency rule of docs/capture.md)."""
    wrapper = getattr(torch, "_TorchCompileInductorWrapper", None)
    original = getattr(wrapper, "__init__", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    def __init__(self, _mode, options, *args, **kwargs):
        original(self, mode, options if mode == "default" else None, *args, **kwargs)

    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    __init__._compdiag = True  # type: ignore[attr-defined]
    wrapper.__init__ = __init__


def _finish(capture) -> None:
    try:
        from compdiag.capture.hooks import run_device

        device = run_device()
        ing = capture.ing
        with capture.lock:
            capture.drain()  # what torch handed over last
            capture.self_time.call(ing.flush)
            ing.update_run(device=device, **capture.self_time.facts())
            ing.commit()
    except Exception:  # noqa: BLE001
        pass


_COMPDIAG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _ours(tb: TracebackType) -> bool:
    """A frame plain python would not have: compdiag's own (the child, the wrappers around
    the backend and the compiled graphs)."""
    return tb.tb_frame.f_code.co_filename.startswith(_COMPDIAG_DIR)


def _user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """The traceback plain python would show: runpy's leading frames and every compdiag frame
    dropped, wherever it sits (`coverage run` strips its own leading frames the same way; the
    wrappers compdiag puts around the backend and each compiled graph sit in the middle)."""
    while tb is not None and (_ours(tb) or tb.tb_frame.f_code.co_filename.endswith("runpy.py")
                              or tb.tb_frame.f_code.co_filename.startswith("<frozen runpy")):
        tb = tb.tb_next
    kept = []
    while tb is not None:
        if not _ours(tb):
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:]):
        a.tb_next = b
    if kept:
        kept[-1].tb_next = None
    return kept[0] if kept else None


def _strip_compdiag_frames(exc: BaseException) -> None:
    """_user_traceback on the exception and on every exception chained to it (cause, context,
    the members of an exception group), each once."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        try:
            e.__traceback__ = _user_traceback(e.__traceback__)
        except (TypeError, ValueError):  # noqa: PERF203 - an odd exception keeps its own
            pass
        todo.extend(x for x in (e.__cause__, e.__context__) if x is not None)
        todo.extend(x for x in getattr(e, "exceptions", None) or ()
                    if isinstance(x, BaseException))


def _record_escaped(ing, exc: BaseException) -> None:
    """failures.record_escaped_exception, imported when used: the child imports none of
    compdiag's capture before _start_capture counts it (capture.hooks has it loaded by then)."""
    from compdiag.capture.failures import record_escaped_exception

    record_escaped_exception(ing, exc)


def _exit_status(code: object) -> int:
    """The status SystemExit(code) ends python with (a message is printed and means 1)."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _user_frames_hook(hook):
    """sys.excepthook that shows the traceback plain python would (no compdiag frames)."""

    def excepthook(exc_type, exc, tb):
        if exc is not None:
            _strip_compdiag_frames(exc)
            tb = exc.__traceback__
        hook(exc_type, exc, tb)

    return excepthook


def _run_script(target: str) -> None:
    """Run TARGET as `python TARGET` does (3.9+): __file__ and code filenames absolute,
    sys.argv[0] as given. runpy.run_path would set both to the path as given."""
    path = os.path.abspath(target)
    if os.path.isdir(path) or zipfile.is_zipfile(path):  # a directory or zip with __main__.py
        runpy.run_path(target, run_name="__main__")
        return
    import importlib.machinery
    import types

    with io.open_code(path) as f:
        source = f.read()
    code = compile(source, path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None, __package__=None, __spec__=None,
                           __loader__=importlib.machinery.SourceFileLoader("__main__", path),
                           __builtins__=builtins)
    sys.modules["__main__"] = module
    exec(code, module.__dict__)


def main(argv: list[str]) -> None:
    module = False
    if argv and argv[0] == "-m":
        module, argv = True, argv[1:]
    if not argv:
        print("compdiag: nothing to run", file=sys.stderr)
        sys.exit(2)
    target, args = argv[0], argv[1:]
    if module:
        sys.argv = [target, *args]
        sys.path[0] = os.getcwd()
    else:
        sys.argv = [target, *args]
        sys.path[0] = os.path.dirname(os.path.abspath(target))
    _enable_faulthandler()
    capture = _start_capture()
    try:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            _run_script(target)
    except SystemExit as exc:
        if capture is not None and _exit_status(exc.code) != 0:
            capture.guarded("exception", _record_escaped, capture.ing, exc)
        raise
    except KeyboardInterrupt as exc:
        # Python prints it through sys.excepthook and then ends by SIGINT (exit 130): let it,
        # with compdiag's and runpy's frames out of what the hook prints.
        if capture is not None:
            capture.guarded("exception", _record_escaped, capture.ing, exc)
        sys.excepthook = _user_frames_hook(sys.excepthook)
        raise
    except BaseException as exc:  # noqa: BLE001 - report like python, record, exit 1
        if capture is not None:
            capture.guarded("exception", _record_escaped, capture.ing, exc)
        _strip_compdiag_frames(exc)
        _report(exc)
        sys.exit(1)


def _report(exc: BaseException) -> None:
    """Report an uncaught exception as python does: through sys.excepthook, the program's
    own where it set one (probes40e inductor_cache_under_ckpt: a hook printing a JSON line
    to stdout was never called under compdiag), and python's two tracebacks when the hook
    itself raises."""
    try:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    except BaseException as hook_exc:  # noqa: BLE001 - as python reports a failing hook
        print("Error in sys.excepthook:", file=sys.stderr)
        traceback.print_exception(type(hook_exc), hook_exc, hook_exc.__traceback__)
        print("\nOriginal exception was:", file=sys.stderr)
        traceback.print_exception(type(exc), exc, exc.__traceback__)
    sys.stdout.flush()
    sys.stderr.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
