"""A compiled call's Python side effects against eager's, in a forked copy of the process.

The whole-function check (capture/function_accuracy.py) replays a call in eager only when the
replay cannot change the program's state, so a function that appends to a list, sets an
attribute, rebinds an enclosing variable or prints was never compared, and those effects are
exactly what Dynamo can drop silently (capture/python_state.py says which). A forked child
is a copy of the whole process that the program never sees: just before the compiled call
the process forks, the child runs the same call in eager (`set_stance("force_eager")`) on
its own copy of every object, describes the Python state it left and what it printed, sends
that to the parent and ends with `_exit`; the parent runs the compiled call as it would
have, prints going through as always, and compares. The program's results, output and exit
status are the parent's own, untouched.

Not forked: where a child cannot run the call faithfully or safely: no `os.fork`, CUDA
initialised (a forked child cannot use it), a process group (its collectives would wait for
ranks that never come), or user code that reaches outside the process (opens or saves a
file, runs a command, sends on a socket) or asks whether it is compiled (it differs by
design). A child that takes too long is killed, and that call is not judged."""

from __future__ import annotations

import contextlib
import dis
import inspect
import io
import logging
import os
import pickle
import random
import re
import select
import signal
import sys
import time
import warnings
from types import FunctionType
from typing import Any, Callable

import torch

from compdiag.capture import python_state
from compdiag.capture.accuracy_compare import GraphCheck, OutputCheck
from compdiag.formats.random_names import RANDOM

# names whose call reaches outside the process: a child running them would act twice
_OUTSIDE = frozenset({"open", "save", "savez", "savetxt", "dump", "write_text",
                      "write_bytes", "mkdir", "makedirs", "remove", "unlink", "rename",
                      "rmtree", "system", "Popen", "check_call", "check_output", "send",
                      "sendall", "connect", "urlopen", "post", "put", "input",
                      "is_compiling", "is_dynamo_compiling", "is_exporting"})
_CLOCK = frozenset({"time", "perf_counter", "perf_counter_ns", "monotonic", "time_ns",
                    "process_time", "now", "utcnow"})
_STORES = frozenset({"STORE_ATTR", "STORE_SUBSCR", "STORE_GLOBAL", "STORE_DEREF",
                     "DELETE_ATTR", "DELETE_SUBSCR", "DELETE_GLOBAL"})
_WAIT_S = 30.0        # the child's time beyond the compiled call's (twice it) ...
_WAIT_MAX_S = 300.0   # ... never more than this
_PRINTED = 1 << 20    # printed characters kept
_CALLS = 64           # the last call whose side effects a child compares
_NUMEL = 1 << 24      # elements of a result a child sends back


def _names(funcs: list[FunctionType]) -> set[str]:
    return {n for f in funcs for c in python_state.codes(f.__code__) for n in c.co_names}


def changes_state(funcs: list[FunctionType]) -> bool:
    """Whether the user code has a Python side effect to compare: a store outside its locals,
    a mutating method call, a print."""
    if (python_state.MUTATORS | {"print"}) & _names(funcs):
        return True
    return any(ins.opname in _STORES for f in funcs
               for c in python_state.codes(f.__code__) for ins in dis.get_instructions(c))


def refusal(funcs: list[FunctionType]) -> str | None:
    """Why the call must not run in a forked child (None: it may)."""
    if not hasattr(os, "fork"):
        return "no os.fork here"
    if torch.cuda.is_initialized():
        return "CUDA is initialised"
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return "a process group is initialised"
    outside = sorted(_OUTSIDE & _names(funcs))
    return f"it calls {outside[0]}" if outside else None


def exact_numbers(funcs: list[FunctionType], graphs: list[Any]) -> bool:
    """Whether eager and compiled should leave equal numbers: no random draw or clock read in
    the user code or the graphs (compiled code draws its own numbers)."""
    from compdiag.capture.random_ops import draws_random

    if (RANDOM | _CLOCK) & _names(funcs):
        return False
    return not any(gm is not None and draws_random(gm) for _, gm, *_ in graphs)


class _Tee:
    """sys.stdout while a compiled call runs: everything goes through, and is kept."""

    def __init__(self, stream: Any) -> None:
        self._stream, self.parts, self.size = stream, [], 0

    def write(self, text: str) -> Any:
        if self.size < _PRINTED and isinstance(text, str):
            self.parts.append(text)
            self.size += len(text)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def teed() -> Any:
    """What the program prints to sys.stdout inside the block (`.parts`), still printed."""
    original = sys.stdout
    tee = _Tee(original)
    sys.stdout = tee
    try:
        yield tee
    finally:
        if sys.stdout is tee:
            sys.stdout = original


class Child:
    """The eager run of one call in a forked child; `result()` is what it left."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd, self.started = pid, fd, time.monotonic()

    def result(self, compiled_s: float) -> tuple[Any, ...] | None:
        """(state, printed, eager's exception, eager's result, the user lines eager ran) once
        the child ends, None if it failed or took longer than the compiled call allows."""
        deadline = time.monotonic() + min(_WAIT_MAX_S, _WAIT_S + 2 * compiled_s)
        data = b""
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                ready, _, _ = select.select([self.fd], [], [], left)
                if not ready:
                    continue
                chunk = os.read(self.fd, 1 << 16)
                if not chunk:
                    break
                data += chunk
            return pickle.loads(data) if data else None
        except Exception:  # noqa: BLE001 - a child that failed judges nothing
            return None
        finally:
            self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)
        with contextlib.suppress(OSError, ChildProcessError):
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid == 0:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)


def start(call: Callable[[], Any], roots: list[python_state.Root],
          before: dict[int, str], quiet: Callable[[], Any] | None,
          files: frozenset[str] = frozenset()) -> Child | None:
    """Fork; the child runs `call()` in eager, describes `roots` and sends them with what it
    printed, its result and the lines of `files` it ran. The parent gets the Child (None
    when the fork failed)."""
    read_fd, write_fd = os.pipe()
    try:
        with warnings.catch_warnings():  # Python 3.12 warns on fork with threads
            warnings.simplefilter("ignore")
            pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # the child: never returns
        _child(write_fd, read_fd, call, roots, before, quiet, files)
    os.close(write_fd)
    return Child(pid, read_fd)


_RANDOM_STATE: Any = None


def _child(write_fd: int, read_fd: int, call: Callable[[], Any],
           roots: list[python_state.Root], before: dict[int, str],
           quiet: Callable[[], Any] | None, files: frozenset[str]) -> None:
    status = 0
    try:
        os.close(read_fd)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        import faulthandler

        faulthandler.disable()  # a crash here is not the program's
        logging.disable(logging.CRITICAL)  # nothing reaches the program's handlers or store
        if _RANDOM_STATE is not None:  # `random` reseeds itself in a forked child
            random.setstate(_RANDOM_STATE)
        torch.set_num_threads(1)
        printed = io.StringIO()
        sys.stdout, sys.stderr = printed, io.StringIO()
        error = result = None
        with quiet() if quiet is not None else contextlib.nullcontext(), \
                torch.compiler.set_stance("force_eager"):
            ran: set[tuple[str, int]] = set()
            try:
                with lines_run(ran, files):
                    result = _portable(call())
            except BaseException as exc:  # noqa: BLE001 - eager's own failure, reported
                error = f"{type(exc).__name__}: {exc}"[:300]
            state = python_state.describe(roots, before)
        text = printed.getvalue()[:_PRINTED]
        try:
            data = pickle.dumps((state, text, error, result, ran))
        except Exception:  # noqa: BLE001 - a result that does not pickle is not compared
            data = pickle.dumps((state, text, error, None, ran))
        while data:
            data = data[os.write(write_fd, data):]
    except BaseException:  # noqa: BLE001 - the parent reads nothing and judges nothing
        status = 1
    finally:
        # the real _exit: capture/child.py's records an os._exit of the program's
        getattr(os._exit, "__wrapped__", os._exit)(status)


@contextlib.contextmanager
def lines_run(ran: set[tuple[str, int]] | None, files: frozenset[str] | None = None) -> Any:
    """Inside the block, (file, line) of each line run in `files` (None: the program's own
    files) is added to `ran`; nothing is recorded while another tracer (a debugger, coverage)
    is on, which is left as it is."""
    if ran is None or sys.gettrace() is not None:
        yield
        return
    sys.settrace(_line_tracer(ran, files))
    try:
        yield
    finally:
        sys.settrace(None)


def _line_tracer(ran: set[tuple[str, int]], files: frozenset[str] | None
                 ) -> Callable[..., Any]:
    from compdiag.formats.user_code import is_user_file

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            ran.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    def calls(frame: Any, event: str, arg: Any) -> Any:
        name = frame.f_code.co_filename
        if name not in files if files is not None else not is_user_file(name):
            return None
        ran.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    return calls


def unrun_node(graphs: list[Any], ran: set[tuple[str, int]]
               ) -> tuple[str | None, dict[str, Any]] | None:
    """(compile id, node) of the first graph node whose stack trace holds a user line that
    eager never ran on the same call: where the compiled code took another path through the
    function than Python did (pytorch/pytorch#198197: a `getattr` on a builtin type that
    raises in eager did not while tracing, and the graph computed the `else` branch)."""
    from compdiag.capture.accuracy_compare import _op_name
    from compdiag.formats.user_code import frames_in, is_user_file

    files = {f for f, _ in ran}
    for cid, gm, *_ in graphs:
        for node in getattr(getattr(gm, "graph", None), "nodes", ()):
            frames = [f for f in frames_in(node.meta.get("stack_trace") or "")
                      if is_user_file(f["filename"]) and f["filename"] in files]
            for f in reversed(frames):
                if (f["filename"], f["lineno"]) not in ran:
                    return cid, {"node": node.name, "op": str(_op_name(node)),
                                 "user_frame": {"filename": f["filename"],
                                                "lineno": f["lineno"], "line": f["line"]}}
    return None


def _portable(result: Any) -> Any:
    """The call's result for the parent: its tensors detached (plain CPU tensors only, at
    most _NUMEL elements in all), None when it cannot be sent."""
    from torch.utils import _pytree as pytree

    leaves = [x for x in pytree.tree_leaves(result) if isinstance(x, torch.Tensor)]
    if sum(x.numel() for x in leaves) > _NUMEL or any(
            type(x) is not torch.Tensor and not isinstance(x, torch.nn.Parameter)
            or x.layout != torch.strided or x.device.type != "cpu" for x in leaves):
        return None
    return pytree.tree_map(lambda x: x.detach() if isinstance(x, torch.Tensor) else x, result)


def remember_random_state() -> None:
    """Python's `random` state just before a fork: the child puts it back."""
    global _RANDOM_STATE
    _RANDOM_STATE = random.getstate()


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_GRAD_FN = re.compile(r"grad_fn=<\w+>")


def printed_difference(eager: str, compiled: str, numbers: bool = True
                       ) -> tuple[str, str] | None:
    """(eager's words, compiled's words) when the two printed other lines (a tensor's
    grad_fn, which compiled code names its own, left out; the numbers compared to 0.1 %, or
    not at all when `numbers` is off); None when alike."""
    def lines(text: str) -> list[str]:
        return [_NUMBER.sub("#", _GRAD_FN.sub("grad_fn", line)).rstrip()
                for line in text.splitlines()]

    if lines(eager) == lines(compiled) and (not numbers or _close(
            _NUMBER.findall(_GRAD_FN.sub("", eager)),
            _NUMBER.findall(_GRAD_FN.sub("", compiled)))):
        return None

    def words(text: str) -> str:
        rows = text.splitlines()
        first = f": `{rows[0].strip()[:60]}`" if rows else ""
        return f"{len(rows)} line{'s' if len(rows) != 1 else ''}{first}"

    return words(eager), words(compiled)


def _close(a: list[str], b: list[str]) -> bool:
    """Printed numbers equal but for float noise and the last printed digit."""
    for x, y in zip(a, b):
        try:
            u, v = float(x), float(y)
        except ValueError:
            return x == y
        if not abs(u - v) <= 2e-4 + 1e-3 * max(abs(u), abs(v)):
            return False
    return len(a) == len(b)


def verdicts(eager: tuple[Any, ...], compiled: dict[str, tuple],
             printed: str, funcs: list[FunctionType], numbers: bool
             ) -> list[tuple[str, str, str, dict[str, Any] | None]]:
    """(what differs, eager's words, compiled's words, the user line that changes it) of the
    Python state and the printed lines the compiled call left otherwise than eager; nothing
    when eager raised (the tensor checks judge that)."""
    state, eager_printed, error = eager[:3]
    if error is not None:
        return []
    out = [(path, e, c, python_state.change_site(funcs, path))
           for path, e, c in python_state.differences(state, compiled, numbers)]
    said = _printed(eager_printed, printed, funcs, numbers)
    return out + ([said] if said is not None else [])


def _printed(eager: str, compiled: str, funcs: list[FunctionType], numbers: bool
             ) -> tuple[str, str, str, dict[str, Any] | None] | None:
    """The printed lines' difference as a verdict's row, at the first `print` the code
    reached; None when alike."""
    said = printed_difference(eager, compiled, numbers)
    return None if said is None else ("the printed output", *said,
                                      python_state.print_site(funcs))


def call(checker: Any, compiled: Callable[..., Any], target: Any, args: tuple[Any, ...],
         kwargs: dict[str, Any], state: dict[str, Any]) -> Any:
    """The compiled call of `target` (a function or a module), its Python side effects
    compared on calls 1, 2, 4, ... 64 with eager's in a forked child, until one differs;
    `checker` is the FunctionChecker (capture/function_accuracy.py), `state` its record of
    the compiled callable."""
    st = state.setdefault("forked", {"calls": 0, "done": False})
    st["calls"] += 1
    n = st["calls"]
    if st["done"] or n & (n - 1) or n > _CALLS:
        return compiled(*args, **kwargs)
    child = None
    try:
        roots, funcs = python_state.reach(target, args, kwargs, _parameter_names(target))
        random = _draws(target, funcs)
        if (changes_state(funcs) or not random) and refusal(funcs) is None:
            keep: list[Any] = []  # every object described, held until the comparison
            ids: dict[int, str] = {}
            python_state.describe(roots, None, keep, ids)
            remember_random_state()
            child = start(lambda: compiled(*args, **kwargs), roots, ids,
                          checker.graphs.quiet,
                          frozenset(f.__code__.co_filename for f in funcs))
    except Exception:  # noqa: BLE001 - what cannot be judged is not forked
        child = None
    if child is None:
        st["done"] = True
        return compiled(*args, **kwargs)
    checker.busy = True
    started = time.perf_counter()
    try:
        with teed() as tee:
            out, graphs = checker.watched_call(compiled, args, kwargs, state)
    except BaseException:
        child.close()
        raise
    finally:
        checker.busy = False
    try:
        eager = child.result(time.perf_counter() - started)
        numbers = exact_numbers(funcs, graphs)
        found = [] if eager is None else verdicts(
            eager, python_state.describe(roots, ids), "".join(tee.parts), funcs, numbers)
        if found:
            st["done"] = True
            checker.sink(_lost(found, graphs, _function_name(target), n))
        elif eager is not None and eager[2] is None and eager[3] is not None and \
                not random and numbers:
            # the result against eager's (the whole-function check's rules and verdicts)
            st["done"] = checker.check(
                target, (args, kwargs), None, out, graphs, [], n, state["first"],
                name=_function_name(target), eager=eager[3], forked=True, ran=eager[4])
    except Exception:  # noqa: BLE001 - a checker fault is never the program's
        st["done"] = True
    return out


def _draws(target: Any, funcs: list[FunctionType]) -> bool:
    """Whether the call draws random numbers, so its results differ from eager's by design:
    the user code names a draw or the clock, or a module in training mode holds dropout."""
    if (RANDOM | _CLOCK) & _names(funcs):
        return True
    return isinstance(target, torch.nn.Module) and any(
        m.training and isinstance(m, torch.nn.modules.dropout._DropoutNd)
        for m in target.modules())


def lost_print(target: Any, before: tuple[tuple[Any, ...], dict[str, Any]],
               eager: str | None, compiled: str | None, graphs: list[Any], name: str,
               call: int) -> GraphCheck | None:
    """The verdict of the in-process replay's printed lines against the compiled call's
    (capture/function_accuracy.py replays on copies and discards its prints): a print the
    compiled code dropped, reordered or printed with other values (probes44d
    obs_norm_print_before_update: a running mean printed after its in-place update)."""
    if eager is None or compiled is None:
        return None
    args, kwargs = before
    _, funcs = python_state.reach(target, args, kwargs, _parameter_names(target))
    said = _printed(eager, compiled, funcs, exact_numbers(funcs, graphs))
    return None if said is None else _lost([said], graphs, name, call)


def _parameter_names(target: Any) -> list[str]:
    fn = target.forward if isinstance(target, torch.nn.Module) else target
    try:
        return [n for n in inspect.signature(fn).parameters]
    except (TypeError, ValueError):
        return []


def _function_name(target: Any) -> str:
    return type(target).__name__ if isinstance(target, torch.nn.Module) else \
        getattr(target, "__qualname__", "the function")


def _lost(found: list[tuple[str, str, str, dict[str, Any] | None]],
          graphs: list[tuple[str | None, Any, Any, bool]], name: str, call: int) -> GraphCheck:
    """The verdict of Python state the compiled call left otherwise than eager."""
    checks = []
    for what, eager, compiled, frame in found[:5]:
        detail: dict[str, Any] = {"verdict": "lost_side_effect", "function": name,
                                  "eager": eager, "compiled": compiled}
        if frame:
            detail["user_frame"] = frame
        if call > 1:
            detail["call"] = call
        checks.append(OutputCheck(what, False, None, None, detail))
    frame = next((f for *_, f in found if f), None)
    node = {"node": None, "op": None, "user_frame": frame} if frame else None
    return GraphCheck(graphs[-1][0] if graphs else None, checks, divergent_node=node)
