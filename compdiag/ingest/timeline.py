"""torch's chromium events (the `chromium_event` records of the structured trace: `dynamo_timed`
regions as B/E pairs, cache lookups as instants) turned into closed intervals and into where a
compile's wall time went.

Pure: no torch, no store. The Ingestor feeds events in arrival order and writes what comes
out; `compdiag reindex` replays the same records through it. Attribution is exclusive: a
moment belongs to the innermost named region around it (`STAGE_OF`), so a compile's stages
never add up to more than its wall clock, and what no named region covers is `unaccounted`
(torch's own glue: frame set-up, bytecode rewriting, guard installation outside build_guards)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterator

# torch's region name -> the stage its own time (children excluded) counts for.
STAGE_OF = {
    "bytecode_tracing": "dynamo_tracing",
    "fullgraph_capture": "dynamo_tracing",
    "build_guards": "guard_building",
    "precompile_build_guards": "guard_building",
    "gc": "gc",
    "backend_compile": "aot_autograd",
    "create_aot_dispatcher_function": "aot_autograd",
    "aot_collect_metadata": "aot_autograd",
    "aot_trace_joint_graph": "aot_autograd",
    "compile_fx.<locals>.fw_compiler_base": "inductor",
    "compile_fx.<locals>.bw_compiler": "inductor",
    "inductor_compile": "inductor",
    "fx_codegen_and_compile": "inductor",
    "_recursive_pre_grad_passes": "inductor_passes",
    "_recursive_joint_graph_passes": "inductor_passes",
    "_recursive_post_grad_passes": "inductor_passes",
    "GraphLowering.run": "inductor_lowering",
    "code_gen": "scheduling_codegen",
    "GraphLowering.codegen": "scheduling_codegen",
    "GraphLowering.codegen_subgraph": "scheduling_codegen",
    "Scheduler.__init__": "scheduling_codegen",
    "Scheduler.codegen": "scheduling_codegen",
    "PythonWrapperCodegen.generate": "scheduling_codegen",
    "CppWrapperCpu.generate": "scheduling_codegen",
    "CppWrapperGpu.generate": "scheduling_codegen",
    "compile_file": "kernel_compile",
    "PyCodeCache.load_by_key_path": "kernel_compile",
    "async_compile.precompile": "kernel_compile",
    "async_compile.wait": "kernel_compile",
    "reload_kernel_in_parent": "kernel_compile",
    "inductor_codecache_torch_key": "cache_lookup",
    "CacheBase.get_system.triton_key": "cache_lookup",
    "AOTAutogradCache.inductor_load": "cache_lookup",
    "TritonBundler.load_cached_static_autotuners": "cache_lookup",
}
# Name patterns for families of regions: (prefix, suffix, stage).
STAGE_PATTERNS = (
    ("pass.", "", "inductor_passes"),
    ("CachingAutotuner.", "", "autotune"),
    ("", "_template_autotuning", "autotune"),
    ("", "_template_precompiling", "autotune"),
)
# Every stage name, in pipeline order (the order views list them in).
STAGES = ("dynamo_tracing", "aot_autograd", "inductor_passes", "inductor_lowering",
          "scheduling_codegen", "kernel_compile", "autotune", "cache_lookup", "inductor",
          "guard_building", "gc")
UNACCOUNTED = "unaccounted"


def stage_of(name: str) -> str | None:
    stage = STAGE_OF.get(name)
    if stage is None:
        stage = next((s for pre, suf, s in STAGE_PATTERNS
                      if name.startswith(pre) and name.endswith(suf)), None)
    return stage


@dataclass
class Interval:
    """One closed region (or an instant, dur_us None) of one compile id."""

    compile_id: str | None
    name: str
    cat: str | None
    start_us: float
    dur_us: float | None
    depth: int
    stage: str | None
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Open:
    name: str
    cat: str | None
    start_us: float
    args: dict[str, Any]
    covered_us: float = 0.0  # time of named regions inside it (what it does not own)


@dataclass
class CompileClock:
    """What one compile id's closed outermost regions add up to."""

    stages: dict[str, float] = field(default_factory=dict)
    total_us: float = 0.0

    def add(self, stage: str, us: float) -> None:
        if us > 0:
            self.stages[stage] = self.stages.get(stage, 0.0) + us


class Timeline:
    """Pairs B/E events per (compile id, thread) and keeps each compile's stage clock. Feed
    events with `event()`; it yields the intervals that closed. An E without its B (a log cut
    at the start) and a B never closed (a killed process) attribute nothing."""

    def __init__(self) -> None:
        self.open: dict[tuple[str | None, Any], list[_Open]] = {}
        self.clocks: dict[str | None, CompileClock] = {}

    def event(self, ev: dict[str, Any]) -> Iterator[Interval]:
        ph, name, ts = ev.get("ph"), ev.get("name"), ev.get("ts")
        if not isinstance(name, str) or not isinstance(ts, (int, float)) or isinstance(ts, bool) \
                or not math.isfinite(ts):
            return
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        cid = args.get("compile_id") if isinstance(args.get("compile_id"), str) else None
        tid = ev.get("tid") if isinstance(ev.get("tid"), (int, str)) else None
        stack = self.open.setdefault((cid, tid), [])
        cat = ev.get("cat") if isinstance(ev.get("cat"), str) else None
        if ph == "B":
            stack.append(_Open(name, cat, float(ts), dict(args)))
        elif ph == "E":
            at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].name == name), None)
            if at is None:
                return
            region = stack[at]
            del stack[at:]  # regions left open inside it never closed: drop them
            dur = max(0.0, float(ts) - region.start_us)
            yield self._close(cid, stack, region, dur, {**region.args, **args})
        elif ph == "X" and isinstance(ev.get("dur"), (int, float)) \
                and not isinstance(ev.get("dur"), bool) and math.isfinite(ev["dur"]):
            region = _Open(name, cat, float(ts), dict(args))
            yield self._close(cid, stack, region, max(0.0, float(ev["dur"])), dict(args))
        elif ph in ("i", "I", "n"):
            yield Interval(cid, name, cat, float(ts), None, len(stack), None, dict(args))

    def _close(self, cid: str | None, stack: list[_Open], region: _Open, dur: float,
               args: dict[str, Any]) -> Interval:
        stage = stage_of(region.name)
        clock = self.clocks.setdefault(cid, CompileClock())
        own = dur - min(dur, region.covered_us)
        if stage is not None:
            clock.add(stage, own)
        covered = dur if stage is not None else min(dur, region.covered_us)
        if stack:
            stack[-1].covered_us += covered
        else:  # an outermost region: its wall time is the compile's, the rest unaccounted
            clock.total_us += dur
            clock.add(UNACCOUNTED, dur - covered)
        return Interval(cid, region.name, region.cat, region.start_us, dur, len(stack), stage,
                        args)
