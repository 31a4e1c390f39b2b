"""In-process hooks on torch's own emitters, streaming into the store.

Consumes what torch already emits: the structured trace (logger `torch.__trace`), a few
artifact loggers (fusion, perf_hints, cudagraphs, autotuning) and Dynamo's bytecode hook.
Every hook is fail-open: an exception inside compdiag becomes a run warning, never a change
to the program's behaviour."""

from __future__ import annotations

import contextlib
import dis
import functools
import io
import json
import logging
import os
import threading
import sys
import weakref
from typing import Any, Callable, Iterator

from compdiag.capture import direct_log
from compdiag.capture.after_import import after_import
from compdiag.capture.compile_context import current_compile_id
from compdiag.capture.self_time import SelfTime
from compdiag.ingest.ingestor import Ingestor

# artifact name -> what to do with a line of it
ARTIFACTS = ("fusion", "perf_hints", "cudagraphs", "autotuning")
# The records and lines waiting to be ingested (Capture.defer): ingested together once this
# many wait, at the store writer's next tick (every flush interval), before any other hook
# and at exit.
BACKLOG = 256


class CodeSet:
    """Code objects by identity, held weakly. A set of code objects hashes them, and a code
    object's hash hashes its constants: Dynamo's transformed code can hold a dict among them
    (the zoo's SegFormer, issue 32), which made the bytecode hook fail with "unhashable type:
    'dict'" and lose that compile's bytecode."""

    def __init__(self) -> None:
        self._codes: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()

    def add(self, code: Any) -> None:
        self._codes[id(code)] = code

    def __contains__(self, code: object) -> bool:
        return self._codes.get(id(code)) is code


def run_device() -> str:
    """The run's device as the store names it: `cuda:<name>` once the program has used CUDA
    (never importing torch for a program that did not)."""
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "cuda"):
        return "cpu"

    return ("cuda:" + torch.cuda.get_device_name()) if torch.cuda.is_initialized() else "cpu"


# Environment variables torch's compiler modules set when imported (Inductor's cache_dir()
# writes TORCHINDUCTOR_CACHE_DIR), which a plain `import torch` does not.
TORCH_SETS_ON_IMPORT = ("TORCHINDUCTOR_CACHE_DIR",)


class Capture:
    def __init__(self, ingestor: Ingestor) -> None:
        self.ing = ingestor
        self.lock = threading.RLock()
        self.warned: set[str] = set()
        self.paused_depth = 0
        self.timing_depth = 0
        self._trace_handler: logging.Handler | None = None
        self._artifact_handler: logging.Handler | None = None
        self._artifact_names: dict[str, str] = {}  # logger name -> its artifact
        self.failure_graphs: Any = None  # a failure_graphs.FailureGraphs once installed
        # The code Dynamo made of the user's functions: a frame running one is inside a
        # compiled call, not the user's line that made it (_call_line).
        self.transformed_codes = CodeSet()
        # compdiag's own time in the program (issue 34): every hook and store flush counts
        self.self_time = SelfTime()
        # What torch handed over, not yet ingested (defer): (where, fn, args), in order.
        self._backlog: list[tuple[str, Callable[..., Any], tuple]] = []
        self._draining = False
        writer = getattr(ingestor, "w", None)
        if callable(getattr(writer, "flush", None)):  # its timer thread's flushes too
            writer.flush = self.self_time.wrap(writer.flush)
        if hasattr(writer, "on_tick"):  # the timer ingests the backlog before it commits
            writer.on_tick = self.tick
        self._device: str | None = None

    def tick(self) -> None:
        """The writer's timer: the backlog, and the run's device as soon as it is known (at
        exit too, but `os._exit` runs no exit handler: probes35c early_stop_os_exit_ok kept
        its records and lost the device the header shows; child.py's os._exit wrapper calls
        it too, for a program that ends before the first tick)."""
        self.drain()
        device = run_device()
        if device != self._device:
            with self.lock:
                self.self_time.call(functools.partial(self.ing.update_run, device=device))
            self._device = device

    # -- fail-open plumbing -----------------------------------------------------------------
    def warn(self, where: str, exc: BaseException) -> None:
        key = f"{where}: {type(exc).__name__}"
        if key in self.warned:
            return
        self.warned.add(key)
        try:
            self.ing.warn(f"compdiag hook {where} failed: {type(exc).__name__}: {exc}"[:1000])
        except Exception:  # noqa: BLE001
            pass

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Compiles compdiag itself makes (accuracy localisation) stay out of the store."""
        self.paused_depth += 1
        try:
            yield
        finally:
            self.paused_depth -= 1

    @contextlib.contextmanager
    def timing(self) -> Iterator[None]:
        """compdiag perf's timing loops: paused like the accuracy replays, except for what the
        compiled graphs themselves report when first run (CUDA-graph recording or skips), which
        is the same whichever call runs them first."""
        self.timing_depth += 1
        try:
            with self.paused():
                yield
        finally:
            self.timing_depth -= 1

    def guarded(self, where: str, fn: Callable[..., Any], *args: Any,
                in_timing: bool = False) -> None:
        if self.paused_depth and not (in_timing and self.timing_depth):
            return
        try:
            with self.lock:
                if self._backlog:  # what came before is ingested before this hook runs
                    self.self_time.call(self._drain)
                self.self_time.call(fn, *args)
        except Exception as exc:  # noqa: BLE001 - fail open
            self.warn(where, exc)

    def defer(self, where: str, fn: Callable[..., Any], *args: Any) -> None:
        """fn(*args) later, in order with every other hook: torch's records and log lines
        wait in a backlog and are ingested BACKLOG at a time (issue 34). Ingesting one record
        between two steps of torch's compile cost about twice what it costs among others
        (the compile evicts compdiag's code and data from the CPU's caches), and each paid
        the lock and the CPU timers on its own. The backlog is ingested before any other hook
        runs (one that reads what was ingested, such as the program's exception, sees it
        all), at the store writer's timer tick, so a SIGKILL still loses at most the last
        flush interval, and at exit. Everything that depends on the moment (the compile id
        running now, a message's text, the live stack) is taken before it waits."""
        if self.paused_depth:
            return
        self._backlog.append((where, fn, args))
        if len(self._backlog) >= BACKLOG:
            self.drain()

    def drain(self) -> None:
        """Ingest the backlog now (any thread; compdiag's own time)."""
        if self._backlog:
            with self.lock:
                self.self_time.call(self._drain)

    def _drain(self) -> None:
        if self._draining:  # a hook that ingestion itself set off (a warning)
            return
        self._draining = True
        try:
            while self._backlog:
                batch, self._backlog = self._backlog, []
                for where, fn, args in batch:
                    try:
                        fn(*args)
                    except Exception as exc:  # noqa: BLE001 - fail open, as guarded
                        self.warn(where, exc)
        finally:
            self._draining = False

    # -- install ----------------------------------------------------------------------------
    def install(self) -> None:
        import torch  # noqa: F401 - installed once the program imported torch (child.py)
        unset = {k for k in TORCH_SETS_ON_IMPORT if k not in os.environ}
        # torch's own modules the hooks attach to: imported first, outside compdiag's time
        # (a program that compiles imports them anyway, at its first torch.compile)
        import torch._dynamo  # noqa: F401 - (its __init__ imports convert_frame)
        import torch._logging._internal  # noqa: F401

        try:
            self.self_time.call(self._install)
        finally:
            # what those imports put in the program's environment, taken out again: the
            # program sees it as a plain run does until its own first compile (probes42f
            # cache_dir_stable_ok: `os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", ...)`
            # after `import torch` was silently ignored under compdiag run)
            for key in unset:
                os.environ.pop(key, None)

    def _install(self) -> None:
        self._install_trace()
        for name, fn in (("trace timer", self.self_time.install_trace_timer),
                         ("artifact loggers", self._install_artifacts),
                         ("bytecode hook", self._install_bytecode_hook),
                         ("autotune hook", self._install_autotune_hook),
                         ("failure graphs", self._install_failure_graphs),
                         ("reset hook", self._install_reset_hook),
                         ("warnings", self._install_warnings),
                         ("ddp", self._install_ddp),
                         ("collectives", self._install_collectives),
                         ("node stacks", self._install_node_stacks),
                         ("exception origin", self._install_exception_origin),
                         ("frame skips", self._install_frame_skips),
                         ("module hooks, config sets", self._install_module_hooks),
                         ("lowering node", self._install_lowering_node),
                         ("torch log frames", self._install_torch_log_frames)):
            try:
                fn()
            except Exception as exc:  # noqa: BLE001
                self.warn(name, exc)

    def _install_trace(self) -> None:
        capture = self

        class TraceHandler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    capture.self_time.call(self._emit, record, trace=True)
                except Exception as exc:  # noqa: BLE001 - fail open
                    capture.warn("trace record", exc)

            def _emit(self, record: logging.LogRecord) -> None:
                md = getattr(record, "metadata", None)
                if not isinstance(md, dict):
                    return
                payload = getattr(record, "payload", None)
                # (the backward's lazy compile reports its own: probes46c bisenet, a codegen
                # assertion in the backward was at `loss.backward()`)
                metrics = md.get("compilation_metrics") or md.get("bwd_compilation_metrics")
                if isinstance(metrics, dict) and metrics.get("fail_type"):
                    # before the record: the failure it makes takes the node's line
                    capture.guarded("failing node", capture._on_failed_compile)
                elif (md.get("artifact") or {}).get("name") == "dynamo_graph_break_reason":
                    # before the record: the break it makes keeps the operator it was inside
                    from compdiag.capture import break_hop, break_stack
                    from compdiag.ingest.parsers import compile_id_of

                    break_hop.queue(capture, compile_id_of(md))
                    break_stack.queue(capture, compile_id_of(md))
                capture.defer("trace record", capture.ing.record, md,
                              payload if isinstance(payload, str) or payload is None
                              else str(payload))
                if "dynamo_start" in md:
                    capture.guarded("call stack", capture._on_dynamo_start, md)
                elif "compilation_metrics" in md:
                    capture.guarded("compile end", capture._settle)

        trace_log = logging.getLogger("torch.__trace")
        self._trace_handler = TraceHandler(level=logging.DEBUG)
        trace_log.addHandler(self._trace_handler)
        trace_log.setLevel(logging.DEBUG)
        trace_log.propagate = False
        direct_log.install(trace_log, self._trace_handler)
        self._keep_trace_enabled()
        from compdiag.capture import safe_payloads

        safe_payloads.install(self.warn)

    def _settle(self) -> None:
        """A compile ended (its compilation_metrics record): what it produced (kernels,
        graphs, the output code) is committed now, before its compiled code first runs. A
        kernel that aborts the process natively (a C++ exception thrown in an OpenMP region)
        leaves no chance to write after it, and the run's end is explained by those rows
        (the kernel whose check the C++ runtime's last words quote). One commit a compile."""
        writer = getattr(self.ing, "w", None)
        if callable(getattr(writer, "flush", None)):
            writer.flush()

    def _on_failed_compile(self) -> None:
        from compdiag.capture.lowering_node import record_failing_node

        record_failing_node(self)

    def _on_dynamo_start(self, md: dict[str, Any]) -> None:
        from compdiag.capture.call_sites import call_record
        from compdiag.ingest.parsers import compile_id_of

        call = call_record()
        if call is not None:
            self.ing.event("call_stack", compile_id_of(md), {}, payload=json.dumps(call))

    def _keep_trace_enabled(self) -> None:
        """torch re-initialises its loggers on set_logs(); re-apply our levels afterwards."""
        import torch._logging._internal as internal

        original = internal._init_logs
        capture = self

        def _init_logs(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            try:
                logging.getLogger("torch.__trace").setLevel(logging.DEBUG)
                for qname in internal.log_registry.get_artifact_log_qnames():
                    capture._configure_artifact(logging.getLogger(qname))
                if getattr(capture, "torch_log_handler", None) is not None:
                    from compdiag.capture.torch_log_frames import attach

                    attach(capture)
            except Exception as exc:  # noqa: BLE001
                capture.warn("set_logs", exc)
            return result

        internal._init_logs = _init_logs

    def _install_artifacts(self) -> None:
        """Turn on the artifact loggers torch's TORCH_LOGS would, into our handler only.

        Their own stderr handlers hang off ancestor loggers; keeping propagate off means the
        user's stderr stays exactly as without compdiag."""
        import torch._logging._internal as internal

        capture = self

        class ArtifactHandler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    capture.self_time.call(self._emit, record)
                except Exception as exc:  # noqa: BLE001 - fail open
                    capture.warn("artifact log", exc)

            def _emit(self, record: logging.LogRecord) -> None:
                if capture._artifact_name(record) == "fusion":  # hundreds a compile
                    if not capture.paused_depth:
                        line = capture._fusion_line(record)
                        if line is not None:
                            capture.defer("artifact log", *line)
                    return
                capture.guarded("artifact log", capture._on_artifact_line, record,
                                in_timing=capture._artifact_name(record) == "cudagraphs")

        self._artifact_handler = ArtifactHandler(level=logging.DEBUG)
        self._user_enabled = {a for a in ARTIFACTS if internal.log_state.is_artifact_enabled(a)}
        original = internal.configure_artifact_log

        def configure_artifact_log(log: logging.Logger) -> None:
            original(log)
            capture._configure_artifact(log)

        internal.configure_artifact_log = configure_artifact_log
        for qname in internal.log_registry.get_artifact_log_qnames():
            self._configure_artifact(logging.getLogger(qname))
        if "fusion" not in self._user_enabled:
            after_import("torch._inductor.scheduler", self._count_fusion_listing)

    def _count_fusion_listing(self, module: Any) -> None:
        """With the fusion logger on, each round of fusion lists every candidate node, its
        text (debug_str_short) built by torch before the logger is called: torch's work for
        compdiag, counted with its trace records (issue 34)."""
        for cls in list(vars(module).values()):
            fn = vars(cls).get("debug_str_short") if isinstance(cls, type) else None
            if callable(fn) and not getattr(fn, "_compdiag", False):
                cls.debug_str_short = self.self_time.count_torch_work(fn)

    def _configure_artifact(self, log: logging.Logger) -> None:
        name = getattr(log, "artifact_name", None)
        if name not in ARTIFACTS or self._artifact_handler is None:
            return
        if self._artifact_handler not in log.handlers:
            log.addHandler(self._artifact_handler)
        direct_log.install(log, self._artifact_handler)
        if name not in self._user_enabled:
            log.setLevel(logging.DEBUG)
            log.propagate = False

    def _artifact_name(self, record: logging.LogRecord) -> str:
        """The artifact a record's logger serves ('fusion'), looked up once per logger
        (logging.getLogger takes logging's module lock: twice a line, hundreds of lines)."""
        name = self._artifact_names.get(record.name)
        if name is None:
            name = getattr(logging.getLogger(record.name), "artifact_name", None) or "log"
            self._artifact_names[record.name] = name
        return name

    def _fusion_line(self, record: logging.LogRecord) -> tuple[Any, ...] | None:
        """What a fusion logger line is ingested as, (fn, *args), its text and compile id
        taken now. Keep the decisions; of the large candidate listings, only which FX nodes
        and user lines each scheduler node is (what places a decision in the user's code)."""
        msg = record.getMessage()
        if "fuse" in msg and ("fusing " in msg or "cannot fuse" in msg):
            return (self.ing.event, "fusion", current_compile_id(),  # + its row
                    {"logger": record.name}, msg)
        if "SchedulerNode(name=" in msg:
            return (self.ing.scheduler_node_line, current_compile_id(), msg)
        return None

    def _on_artifact_line(self, record: logging.LogRecord) -> None:
        name = self._artifact_name(record)
        if name == "fusion":
            line = self._fusion_line(record)
            if line is not None:
                line[0](*line[1:])
            return
        msg = record.getMessage()
        cid = current_compile_id()
        data = {"logger": record.name, "level": record.levelname}
        if name in ("perf_hints", "cudagraphs"):
            self.ing.cudagraph_line(cid, msg)
            if "ecording" in msg or "distinct sizes" in msg:  # (Re-)recording
                # cudagraph_trees records (and warns) inside a call: the user line that made
                # it is the call that brought the sizes (a few lines a run; issue 29 §6).
                data["call"] = _call_line(self.transformed_codes)
        self.ing.event(name, cid, data, msg)

    def _install_ddp(self) -> None:
        from compdiag.capture.ddp import install

        install(self)

    def _install_collectives(self) -> None:
        from compdiag.capture.collectives import install

        install(self)

    def _install_node_stacks(self) -> None:
        from compdiag.capture.node_stacks import install

        install(self)

    def _install_exception_origin(self) -> None:
        from compdiag.capture.exception_origin import install

        install(self)

    def _install_lowering_node(self) -> None:
        from compdiag.capture.lowering_node import install

        install(self)

    def _install_torch_log_frames(self) -> None:
        from compdiag.capture.torch_log_frames import install

        install(self)

    def _install_frame_skips(self) -> None:
        from compdiag.capture.frame_skips import install

        install(self, lambda: _call_line(self.transformed_codes))

    def _install_module_hooks(self) -> None:
        from compdiag.capture import config_sets, module_hooks
        from compdiag.capture.graph_count import graphs_so_far
        from compdiag.formats.user_code import is_user_file

        graphs = graphs_so_far()
        module_hooks.install(self, lambda: _call_line(self.transformed_codes), graphs)
        config_sets.install(self, graphs, is_user_file)
        from compdiag.capture import (cache_artifacts, environ_sets, module_writes, processes,
                                      state_dict_loads)

        module_writes.install(self, graphs, is_user_file)
        environ_sets.install(self, graphs, is_user_file)

        cache_artifacts.install(self, graphs, is_user_file)

        processes.install(self, is_user_file)

        state_dict_loads.install(self, lambda: _call_line(self.transformed_codes))

    def _install_warnings(self) -> None:
        """torch's own notices (TF32 left off, ...) are Python warnings that scroll by on
        stderr: keep torch's, then show them exactly as before."""
        import warnings

        original = warnings.showwarning
        capture = self

        def showwarning(message: Any, category: Any, filename: str, lineno: int,
                        file: Any = None, line: Any = None) -> None:
            # torch attributes some warnings to the user's line (stacklevel): the global
            # hooks warning names the torch.compile(module) call; keep those too
            if "torch" in str(filename) or _warned_by_torch():
                # the user's call running then: a warning torch raises while compiled code
                # runs (cudagraph_trees' slow path) is about that call (issue 29 §6)
                capture.guarded("warning", capture.ing.event, "warning", current_compile_id(),
                                {"category": getattr(category, "__name__", str(category)),
                                 "filename": filename, "lineno": lineno,
                                 "call": _call_line(capture.transformed_codes)}, str(message))
            return original(message, category, filename, lineno, file, line)

        warnings.showwarning = showwarning

    def install_accuracy_check(self, rtol: float | None = None, atol: float | None = None
                               ) -> None:
        from compdiag.capture.accuracy import AccuracyChecker, Tolerance

        checker = AccuracyChecker(self._on_accuracy, tol=Tolerance(rtol, atol),
                                  compile_id=current_compile_id, quiet=self.paused)
        checker.install()
        # the function whole against eager: what Dynamo traced wrong, which every graph's
        # own check passes (capture/function_accuracy.py)
        from compdiag.capture.function_accuracy import FunctionChecker

        self.guarded("function accuracy check", FunctionChecker(
            self._on_accuracy, Tolerance(rtol, atol), checker).install)

    def _on_accuracy(self, check: Any) -> None:
        with self.lock:
            self.drain()
            self.ing.accuracy(check)
        if self.failure_graphs is not None:  # a failing check keeps its graph for minify
            self.guarded("failure graph (accuracy)", self.failure_graphs.on_check, check)

    def _install_failure_graphs(self) -> None:
        from compdiag.capture import backward_graphs, failure_graphs

        self.failure_graphs = failure_graphs.install(self, compile_id=current_compile_id)
        # The lazily compiled backward's graphs, kept the same way (it builds on the forward's
        # FailureGraphs, so it is installed after it, from here).
        backward_graphs.install(self.failure_graphs)

    def _install_reset_hook(self) -> None:
        """torch._dynamo.reset() (torch.compiler.reset() calls it) makes torch count compile
        ids from 0/0 again: a record of it, with the user's line that reset, starts a new
        generation of ids at ingest (ingest/generations.py). Recorded while paused too: a
        reset drops the program's compiled code whoever asks for it."""
        import torch._dynamo

        from compdiag.ingest.generations import RESET_KIND

        original = torch._dynamo.reset
        if getattr(original, "_compdiag", False):
            return
        capture = self

        def reset(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            try:
                with capture.lock:
                    capture.drain()  # the records before the reset are of the generation before
                    capture.ing.event(RESET_KIND, None, {}, json.dumps(_user_line()))
            except Exception as exc:  # noqa: BLE001 - fail open
                capture.warn("reset hook", exc)
            return result

        reset._compdiag = True  # type: ignore[attr-defined]
        reset.__wrapped__ = original  # type: ignore[attr-defined]
        reset.__doc__ = original.__doc__
        torch._dynamo.reset = reset

    def _install_autotune_hook(self) -> None:
        """Autotuning results arrive as real timings through AlgorithmSelectorCache.log_results
        (torch prints them to stderr only under max-autotune); wrap it once Inductor loads."""
        capture = self

        def patch(module: Any) -> None:
            cls = getattr(module, "AlgorithmSelectorCache", None)
            original = getattr(cls, "log_results", None)
            if original is None or getattr(original, "_compdiag", False):
                return

            def log_results(name: str, input_nodes: Any, timings: Any, *args: Any,
                            **kwargs: Any) -> Any:
                capture.guarded("autotune results", capture._on_autotune, name, timings)
                return original(name, input_nodes, timings, *args, **kwargs)

            log_results._compdiag = True  # type: ignore[attr-defined]
            cls.log_results = staticmethod(log_results)

        after_import("torch._inductor.select_algorithm", patch)

    def _on_autotune(self, name: str, timings: Any) -> None:
        ranked = sorted(timings.items(), key=lambda kv: kv[1])
        if not ranked:
            return
        lines = [f"{getattr(c, 'name', str(c))} {t:.4f} ms {getattr(c, 'description', '')}"
                 for c, t in ranked]
        best = getattr(ranked[0][0], "name", str(ranked[0][0]))
        cid = current_compile_id()
        self.ing.autotune_choice(cid, name, best, "\n".join(lines))

    def _install_bytecode_hook(self) -> None:
        import torch._dynamo

        register_bytecode_hook = torch._dynamo.convert_frame.register_bytecode_hook

        capture = self

        def hook(code: Any, new_code: Any) -> None:
            capture.guarded("bytecode hook", capture._on_bytecode, code, new_code)
            return None

        register_bytecode_hook(hook)

    def _on_bytecode(self, code: Any, new_code: Any) -> None:
        cid = current_compile_id()
        self.transformed_codes.add(new_code)
        info = {"co_name": code.co_name, "filename": code.co_filename,
                "lineno": code.co_firstlineno}
        self.ing.event("bytecode_original", cid, info, _dis(code))
        self.ing.event("bytecode_transformed", cid, info, _dis(new_code))
        source = _decompile(new_code)
        if source is not None:
            self.ing.event("transformed_source", cid, info, source)


def _user_line() -> dict[str, Any] | None:
    """The innermost user frame of the live stack (the line that called reset)."""
    return _call_line(())


def _call_line(transformed: Any) -> dict[str, Any] | None:
    """The innermost user frame of the live stack whose code is not in `transformed` (Dynamo's
    code for a compiled function): the user's line that called the compiled function."""
    import linecache
    import sys

    from compdiag.formats.user_code import is_user_file

    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code not in transformed and is_user_file(code.co_filename):
            fn, lineno = code.co_filename, frame.f_lineno
            return {"filename": fn, "lineno": lineno, "name": code.co_name,
                    "line": linecache.getline(fn, lineno).strip() or None}
        frame = frame.f_back
    return None


def _dis(code: Any) -> str:
    out = io.StringIO()
    dis.dis(code, file=out)
    return out.getvalue()


def _decompile(code: Any) -> str | None:
    """The transformed code as Python, where depyf manages (it is optional)."""
    try:
        import depyf
    except Exception:  # noqa: BLE001
        return None
    try:
        return depyf.decompile(code)
    except Exception as exc:  # noqa: BLE001 - a decompiler gap is not a capture fault
        return f"# depyf could not decompile {code.co_name}: {type(exc).__name__}: {exc}"


def dumps(value: Any) -> str:
    return json.dumps(value, default=repr)


def _warned_by_torch() -> bool:
    """Whether the code that called warnings.warn is torch's: the first frame above
    showwarning outside the warnings module (warnings.warn itself is C code)."""
    import sys

    try:
        f = sys._getframe(2)
    except ValueError:
        return False
    for _ in range(6):
        if f is None:
            return False
        name = f.f_code.co_filename.replace("\\", "/")
        if not name.endswith(("/warnings.py", "/_py_warnings.py")):
            return "/torch/" in name and "/compdiag/" not in name
        f = f.f_back
    return False
