"""Eager vs compiled timing of every compiled graph, and of whole calls of every compiled
nn.Module (ModuleTimer), inside the user's process (`compdiag perf`).

The graph Dynamo hands to the backend is kept (graph copied, parameters shared), the same way
the accuracy checker keeps it (capture/accuracy.py). At the graph's first call (or the call
COMPDIAG_PERF_AT_CALL names) and before the user's own call runs, the kept graph (eager) and the
compiled function are timed on clones of that call's real inputs (its static inputs, weights and
buffers, are passed as themselves and the buffers put back afterwards: see _static):

- warm-up calls on both sides first (lazy initialisation, CUDA-graph recording, caches);
- then paired samples, eager and compiled alternating, the order flipped each pair, so slow
  drift of a loaded machine hits both sides alike; each sample runs `inner` calls, chosen so one
  sample lasts about COMPDIAG_PERF_SAMPLE_S (a few calls of a 20 us graph are not measurable;
  on a GPU at least COMPDIAG_PERF_CUDA_SAMPLE_S and 3 calls, so the CPU runs ahead as in a loop);
- at least COMPDIAG_PERF_MIN_REPS pairs, then more until COMPDIAG_PERF_BUDGET_S seconds or
  COMPDIAG_PERF_MAX_REPS pairs;
- CUDA: torch.cuda.synchronize() around every sample and the time taken by CUDA events; CPU:
  time.perf_counter.

Only raw samples are stored (per-call seconds); the statistics (median, spread, confidence
interval, noise verdict) are the analysis' job (analyses/perf_stats.py), so they can be
recomputed from the store. The user's call then runs as it would have: it is made after the
timing, so its outputs are the freshest (a CUDA-graph replay overwrites the previous one's
outputs). RNG state and module buffers are restored after the timing; calls per graph are
counted cheaply and written at exit, with the process' peak memory."""

from __future__ import annotations

import atexit
import os
import resource
import sys
import time
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import torch
import torch.fx

from compdiag.capture.accuracy import _preserved_state
from compdiag.capture.progress import emit


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass
class Settings:
    warmup: int = 3
    min_reps: int = 7
    max_reps: int = 60
    budget_s: float = 1.5
    # A sample is a block of back-to-back calls, eager and compiled blocks alternating. Short
    # blocks are biased towards 1x: the first call after a switch runs with the other side's
    # data in the caches. On this repo's 2-core CPU box, 2-3-call blocks of a small MLP gave
    # a median 1.02x (ten processes) where 30-call blocks gave 1.09x and a plain 50 ms-block
    # timing 1.12-1.16x.
    sample_s: float = 0.02
    # On a GPU, the block must also be long enough for the CPU to run ahead of the GPU, as in a
    # real loop: one call between synchronisations exposes the whole CPU-side cost of each
    # call (guards, wrappers, CUDA-graph bookkeeping), which a loop hides. On the H200 that
    # cost made single-call samples of BERT (batch 1) 8-45% slower than 6-9-call blocks of a
    # plain timing. 50 ms, as the plain timing that checks these numbers uses.
    cuda_sample_s: float = 0.05
    cuda_min_inner: int = 3
    at_call: int = 1
    module_at_call: int = 2  # a compiled module's whole call is timed before this call of it

    @classmethod
    def from_env(cls) -> "Settings":
        s = cls()
        s.warmup = int(_env_float("COMPDIAG_PERF_WARMUP", s.warmup))
        s.min_reps = max(2, int(_env_float("COMPDIAG_PERF_MIN_REPS", s.min_reps)))
        s.max_reps = max(s.min_reps, int(_env_float("COMPDIAG_PERF_MAX_REPS", s.max_reps)))
        s.budget_s = _env_float("COMPDIAG_PERF_BUDGET_S", s.budget_s)
        s.sample_s = _env_float("COMPDIAG_PERF_SAMPLE_S", s.sample_s)
        s.cuda_sample_s = _env_float("COMPDIAG_PERF_CUDA_SAMPLE_S", s.cuda_sample_s)
        s.at_call = max(1, int(_env_float("COMPDIAG_PERF_AT_CALL", s.at_call)))
        s.module_at_call = max(2, int(_env_float("COMPDIAG_PERF_MODULE_AT_CALL",
                                                 s.module_at_call)))
        return s


@dataclass
class GraphTiming:
    compile_id: str | None
    eager_s: list[float] = field(default_factory=list)     # per-call seconds, one per sample
    compiled_s: list[float] = field(default_factory=list)
    inner: int = 1
    warmup: int = 0
    timer: str = "perf_counter"
    device: str = "cpu"
    grad_enabled: bool = False
    n_inputs: int = 0
    input_bytes: int = 0
    output_bytes: int = 0
    output_copy_s: float | None = None  # median time to copy the outputs once (a memory
    # round trip of what leaves the graph: what a graph break costs the tensors crossing it)
    error: str | None = None
    calls: int = 0
    target: str | None = None   # whole module calls (ModuleTimer): the module's class
    at_call: int | None = None
    measured: bool = False


def _tensors(args: list[Any]) -> list[torch.Tensor]:
    from torch.utils import _pytree as pytree

    return [t for t in pytree.tree_leaves(args) if isinstance(t, torch.Tensor)]


def _note_inputs(timing: GraphTiming, args: list[Any]) -> list[torch.Tensor]:
    """Record what a timed call takes (device, count, bytes); its tensors, for the caller."""
    tensors = _tensors(args)
    timing.device = _device_of(args)
    timing.n_inputs = len(tensors)
    timing.input_bytes = sum(t.numel() * t.element_size() for t in tensors)
    return tensors


def _send(sink: Callable[[GraphTiming], None], timing: GraphTiming) -> None:
    try:
        sink(timing)
    except Exception:  # noqa: BLE001 - storing a timing must not fail the user's call
        pass


def _device_of(args: list[Any]) -> str:
    for t in _tensors(args):
        if t.device.type != "cpu":
            return str(t.device)
    return "cpu"


def _static(t: Any) -> bool:
    """Parameters, and the tensors Dynamo marked static (an inlined module's buffers, or
    torch._dynamo.mark_static_address): a CUDA graph is recorded against their addresses, so a
    copy in their place makes CUDA-graph trees record the graph again for the copy, and the
    user's next call (the real tensor) records it once more. That extra recording stays in the
    user's process: its memory pool, and each replay then first checks the copy's recording."""
    return isinstance(t, torch.Tensor) and (
        isinstance(t, torch.nn.Parameter)
        or getattr(t, "_dynamo_static_input_type", None) is not None)


def _strided_copy(t: torch.Tensor) -> torch.Tensor:
    """A copy with the original's strides. `clone()` keeps them only for a dense tensor; an
    expanded (stride-0) or sliced input comes back contiguous, and the compiled graph's
    `assert_size_stride` on it then fails in the timing loop (probes46e heat_jacobi: "expected
    size 16==16, stride 9216==0"), so the span of storage the view reads is copied and viewed
    the same way again."""
    c = t.clone()
    if c.stride() == t.stride() or t.numel() == 0:
        return c
    span = 1 + sum((n - 1) * s for n, s in zip(t.size(), t.stride()))
    flat = t.as_strided((span,), (1,), t.storage_offset()).clone()
    return flat.as_strided(t.size(), t.stride(), 0)


def _clone_inputs(args: list[Any]) -> list[Any]:
    """Copies the timing loops may mutate freely. Static inputs are shared, not copied (a
    forward graph does not write weights; with inlined nn.Modules every weight is a graph
    input, and two copies of a large model's weights would not fit; a copied buffer costs a
    CUDA-graph re-recording, see _static); the buffers among them are put back by
    _restored_statics. requires_grad is kept, so the compiled side takes the same autograd
    path as the user's call, and so is being an inference tensor or not (a clone made inside
    the program's `torch.inference_mode()` of a tensor made outside it is an inference tensor,
    another kind of tensor to Dynamo's guards: a recompile the program never made, probes29b
    aot_eager_deploy)."""
    from torch.utils import _pytree as pytree

    def copy(t: Any) -> Any:
        if not isinstance(t, torch.Tensor) or _static(t):
            return t
        with torch.inference_mode(t.is_inference()):
            c = _strided_copy(t.detach())
        if t.requires_grad and c.is_floating_point():
            c.requires_grad_(True)
        return c
    return pytree.tree_map(copy, list(args))


@contextmanager
def _restored_statics(args: list[Any]) -> Iterator[None]:
    """The shared static inputs that are not Parameters (running statistics of a training-mode
    BatchNorm are written by every call) as they were before the timing loops."""
    seen: set[int] = set()
    saved = []
    for t in _tensors(args):
        if _static(t) and not isinstance(t, torch.nn.Parameter) and id(t) not in seen:
            seen.add(id(t))
            saved.append((t, t.detach().clone()))
    try:
        yield
    finally:
        with torch.no_grad():
            for t, before in saved:
                if not torch.equal(t, before):  # most graphs write none: leave those alone
                    t.copy_(before)


class _Clock:
    """perf_counter on CPU; CUDA events between synchronisations on a GPU."""

    def __init__(self, device: str) -> None:
        self.cuda = device.startswith("cuda") and torch.cuda.is_available()
        self.name = "cuda_events" if self.cuda else "perf_counter"

    def sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize()

    def time(self, fn: Callable[[], Any], inner: int) -> float:
        """Seconds per call of fn, over `inner` back-to-back calls."""
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            self.sync()
            start.record()
            for _ in range(inner):
                fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1e3 / inner
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        return (time.perf_counter() - t0) / inner


def time_pair(eager: Callable[..., Any], compiled: Callable[..., Any], args: list[Any],
              settings: Settings, timing: GraphTiming) -> GraphTiming:
    """Fill `timing` with paired samples of eager(*args) and compiled(*args) (on clones; the
    static inputs it shares are put back afterwards)."""
    clock = _Clock(timing.device)
    timing.timer = clock.name
    with _restored_statics(args):
        eager_args, compiled_args = _clone_inputs(args), _clone_inputs(args)

        def run_eager() -> Any:
            return eager(*eager_args)

        def run_compiled() -> Any:
            return compiled(*compiled_args)

        # Warm-up, which also calibrates how many calls make one sample.
        t_e = t_c = 0.0
        out = compiled(*compiled_args)
        outs = [t.detach() for t in _tensors([out])]
        timing.output_bytes = sum(t.numel() * t.element_size() for t in outs)
        if outs:
            copies = [clock.time(lambda: [t.clone() for t in outs], 1)
                      for _ in range(max(3, settings.min_reps))]
            timing.output_copy_s = sorted(copies)[len(copies) // 2]
        del out, outs
        for _ in range(max(1, settings.warmup)):
            t_e = clock.time(run_eager, 1)
            t_c = clock.time(run_compiled, 1)
        timing.warmup = max(1, settings.warmup)
        fastest = max(min(t_e, t_c), 1e-7)
        sample_s, least = ((max(settings.sample_s, settings.cuda_sample_s), settings.cuda_min_inner)
                           if clock.cuda else (settings.sample_s, 1))
        timing.inner = max(least, min(10_000, int(sample_s / fastest)))
        started = time.perf_counter()
        for i in range(settings.max_reps):
            if i >= settings.min_reps and time.perf_counter() - started > settings.budget_s:
                break
            if i % 2 == 0:
                timing.eager_s.append(clock.time(run_eager, timing.inner))
                timing.compiled_s.append(clock.time(run_compiled, timing.inner))
            else:
                timing.compiled_s.append(clock.time(run_compiled, timing.inner))
                timing.eager_s.append(clock.time(run_eager, timing.inner))
        clock.sync()
        return timing


class PerfTimer:
    """Wraps Dynamo's call into the backend; `sink(timing)` receives each GraphTiming (again
    at exit, with the call count)."""

    def __init__(self, sink: Callable[[GraphTiming], None], *,
                 settings: Settings | None = None,
                 compile_id: Callable[[], str | None] = lambda: None,
                 paused: Callable[[], Any] | None = None) -> None:
        self.sink = sink
        self.settings = settings or Settings()
        self.compile_id = compile_id
        self.paused = paused
        self.timings: list[GraphTiming] = []
        self._active = False
        self._probe = False

    def install(self) -> Callable[[], None]:
        from compdiag.capture.backend_hook import hook_backend_call

        return hook_backend_call(
            lambda: self._active,
            lambda keep, compiled, _compiler: self.wrap(keep, compiled, self.compile_id()))

    def wrap(self, gm: torch.fx.GraphModule, compiled: Callable[..., Any],
             cid: str | None) -> Callable[..., Any]:
        timer = self
        timing = GraphTiming(cid)
        self.timings.append(timing)

        def timed(*args: Any) -> Any:
            if timer._active:  # a call made by a timing loop: not the user's
                return compiled(*args)
            if not timer._probe:
                timing.calls += 1
            # A probe (ModuleTimer's first, unpaused call) is not the user's call, but a graph
            # it compiles is timed then, as at that graph's first call.
            due = timing.calls + (1 if timer._probe else 0) == timer.settings.at_call
            if not due or timing.measured:
                return compiled(*args)
            timing.measured = True
            timer._active = True
            emit("timing", compile_id=cid, budget_s=timer.settings.budget_s)
            try:
                timer._measure(gm, compiled, list(args), timing)
            except Exception as exc:  # noqa: BLE001 - a timing fault is not the user's
                timing.error = f"{type(exc).__name__}: {exc}"[:500]
            finally:
                timer._active = False
                emit("timed", compile_id=cid, samples=len(timing.compiled_s))
            _send(timer.sink, timing)
            return compiled(*args)

        timed._compdiag_perf = True  # type: ignore[attr-defined]
        return timed

    def _measure(self, gm: torch.fx.GraphModule, compiled: Callable[..., Any], args: list[Any],
                 timing: GraphTiming) -> None:
        tensors = _note_inputs(timing, args)
        # Autograd matters only when some input asks for gradients (then the compiled side is
        # AOTAutograd's forward, saving what backward needs; backward itself is not timed).
        timing.grad_enabled = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
        ctx = self.paused() if self.paused is not None else _null()
        with ctx, _preserved_state(gm):  # RNG streams and buffers as they were
            time_pair(gm, compiled, args, self.settings, timing)

    def finish(self) -> None:
        _send_all(self.timings, self.sink)


class ModuleTimer:
    """Times whole calls of each torch.compile'd nn.Module: the original module (eager, its
    Python included) against the OptimizedModule (Dynamo's guards, every compiled graph and the
    Python between them, CUDA-graph replay). That is the speed-up a user who times
    `model(x)` against `torch.compile(model)(x)` sees; the per-graph timings say where it
    comes from.

    Timed once per module, before its `module_at_call`-th call (the first call compiles, and
    its graphs are timed then), on clones of that call's inputs, with module buffers and RNG
    restored, so the user's call then runs as it would have. Only modules: a plain function's
    Python side effects (appending to a list, printing) would repeat with every timed call;
    a module with a forward hook or a forward whose code changes Python state is not timed
    either, and its timing says why (`error`)."""

    def __init__(self, graph_timer: PerfTimer, sink: Callable[[GraphTiming], None]) -> None:
        self.graph_timer = graph_timer
        self.sink = sink
        self.timings: list[GraphTiming] = []
        self._by_module: "weakref.WeakKeyDictionary[Any, GraphTiming]" = \
            weakref.WeakKeyDictionary()
        self._names: dict[str, int] = {}

    def install(self) -> Callable[[], None]:
        from torch._dynamo.eval_frame import OptimizedModule

        own = "__call__" in OptimizedModule.__dict__
        original = OptimizedModule.__call__
        timer = self

        def __call__(mod: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                timer._before_call(mod, original, args, kwargs)
            except Exception:  # noqa: BLE001 - fail open: the user's call always runs
                pass
            return original(mod, *args, **kwargs)

        OptimizedModule.__call__ = __call__  # type: ignore[method-assign]

        def uninstall() -> None:
            if own:
                OptimizedModule.__call__ = original  # type: ignore[method-assign]
            else:
                del OptimizedModule.__call__

        return uninstall

    def _timing(self, mod: Any) -> GraphTiming:
        t = self._by_module.get(mod)
        if t is None:
            name = type(getattr(mod, "_orig_mod", mod)).__name__
            n = self._names[name] = self._names.get(name, 0) + 1
            t = GraphTiming(None, target=name if n == 1 else f"{name}#{n}")
            self._by_module[mod] = t
            self.timings.append(t)
        return t

    def _before_call(self, mod: Any, original: Callable[..., Any], args: tuple,
                     kwargs: dict) -> None:
        gt = self.graph_timer
        if gt._active:  # called from inside a timing loop
            return
        timing = self._timing(mod)
        timing.calls += 1
        if timing.calls != gt.settings.module_at_call:
            return
        inner = getattr(mod, "_orig_mod", None)
        if not isinstance(inner, torch.nn.Module):
            return
        repeats = _repeated_effect(inner, args, kwargs)
        if repeats is not None:  # each timed call would do it again, in the user's program
            timing.error = f"whole calls not timed: {repeats}"
            _send(self.sink, timing)
            return
        tensors = _note_inputs(timing, [args, kwargs])
        timing.grad_enabled = torch.is_grad_enabled() and (
            any(t.requires_grad for t in tensors)
            or any(p.requires_grad for p in inner.parameters()))
        timing.at_call = timing.calls
        ctx = gt.paused() if gt.paused is not None else _null()
        try:
            with _preserved_state(inner):  # RNG streams and buffers as they were
                # One compiled call first with the capture on: if these inputs need a
                # (re)compile, it is recorded as the user's call would have recorded it (the
                # user's call then hits the cache); the paused timing loops compile nothing.
                gt._probe = True
                try:
                    a, k = _clone_inputs([args, kwargs])
                    original(mod, *a, **k)
                finally:
                    gt._probe = False
                gt._active = True
                with ctx:
                    time_pair(lambda a, k: inner(*a, **k),
                              lambda a, k: original(mod, *a, **k),
                              [args, kwargs], gt.settings, timing)
        except Exception as exc:  # noqa: BLE001 - a timing fault is not the user's
            timing.error = f"{type(exc).__name__}: {exc}"[:500]
        finally:
            gt._active = False
        _send(self.sink, timing)

    def finish(self) -> None:
        _send_all(self.timings, self.sink)


def _repeated_effect(module: torch.nn.Module, args: tuple, kwargs: dict) -> str | None:
    """What a timed call of the module would do again in the program (None: nothing): a
    hook registered on it or on every module, or a forward whose code changes Python state
    or prints (probes44i se_hooks_activation_store_ok: an activation-storing hook ran 672
    times under `perf` where the program ran it 18)."""
    from torch.nn.modules import module as nn_module

    from compdiag.capture import forked_effects, python_state

    hooks = ("_forward_hooks", "_forward_pre_hooks")
    if any(getattr(nn_module, f"_global{h}", None) for h in hooks) or any(
            getattr(m, h, None) for m in module.modules() for h in hooks):
        return "a forward hook is registered, and each timed call would run it again"
    _, funcs = python_state.reach(module, args, kwargs, [])
    if forked_effects.changes_state(funcs):
        return ("its forward changes Python state or prints, which each timed call would "
                "do again")
    return None


def _send_all(timings: list[GraphTiming], sink: Callable[[GraphTiming], None]) -> None:
    """At exit: every timing again, now with its final call count."""
    for t in timings:
        if t.eager_s or t.error:
            _send(sink, t)


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def peak_memory() -> dict[str, Any]:
    """The process' peak resident memory, and the CUDA allocator's peak where CUDA ran."""
    out: dict[str, Any] = {}
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out["peak_rss_bytes"] = int(rss) * (1 if sys.platform == "darwin" else 1024)
    try:
        if torch.cuda.is_initialized():
            out["peak_cuda_bytes"] = int(torch.cuda.max_memory_allocated())
            out["cuda_device"] = torch.cuda.get_device_name()
    except Exception:  # noqa: BLE001
        pass
    return out


def install(capture: Any) -> PerfTimer:
    """Called by the capture child when COMPDIAG_PERF is set: time every compiled graph and
    store the samples (table perf_graphs) and the process' peak memory (perf_runs)."""
    from compdiag.capture.compile_context import current_compile_id

    ing = capture.ing

    drain = getattr(capture, "drain", lambda: None)  # the records before, ingested first

    def sink(t: GraphTiming) -> None:
        with capture.lock:
            drain()
            ing.perf_graph(**graph_row(t))

    def call_sink(t: GraphTiming) -> None:
        with capture.lock:
            drain()
            ing.perf_call(**call_row(t))

    timer = PerfTimer(sink, settings=Settings.from_env(), compile_id=current_compile_id,
                      paused=getattr(capture, "timing", capture.paused))
    timer.install()
    modules = ModuleTimer(timer, call_sink)
    try:
        modules.install()
    except Exception as exc:  # noqa: BLE001 - per-graph timing still works without it
        capture.warn("perf timing of whole module calls", exc)
    started = time.time()

    def at_exit() -> None:
        try:
            timer.finish()
            modules.finish()
            with capture.lock:
                mem = peak_memory()
                ing.perf_run(mode=os.environ.get("COMPDIAG_MODE") or "default",
                             peak_rss_bytes=mem.get("peak_rss_bytes"),
                             peak_cuda_bytes=mem.get("peak_cuda_bytes"),
                             device=mem.get("cuda_device") or "cpu",
                             program_s=time.time() - started,
                             settings=vars(timer.settings))
                ing.commit()
        except Exception as exc:  # noqa: BLE001 - fail open
            capture.warn("perf timing", exc)

    atexit.register(at_exit)
    return timer


def graph_row(t: GraphTiming) -> dict[str, Any]:
    """A graph's timing as its `perf_graphs` columns."""
    return dict(compile_id=t.compile_id or "?", eager_s=t.eager_s, compiled_s=t.compiled_s,
                inner=t.inner, warmup=t.warmup, timer=t.timer, device=t.device,
                grad_enabled=t.grad_enabled, n_inputs=t.n_inputs, input_bytes=t.input_bytes,
                output_bytes=t.output_bytes, output_copy_s=t.output_copy_s, calls=t.calls,
                error=t.error)


def call_row(t: GraphTiming) -> dict[str, Any]:
    """A whole module call's timing as its `perf_calls` columns."""
    return dict(target=t.target or "?", eager_s=t.eager_s, compiled_s=t.compiled_s,
                inner=t.inner, warmup=t.warmup, timer=t.timer, device=t.device,
                grad_enabled=t.grad_enabled, at_call=t.at_call, calls=t.calls, error=t.error)
