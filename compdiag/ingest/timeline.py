"""torch's chromium events (the `chromium_event` records of the structured trace: `dynamo_timed`
regions as B/E pairs, cache lookups as instants) turned into closed intervals and into where a
compile's wall time went.

Pure: no torch, no store. The Ingestor feeds events in arrival order and writes what comes
out; `compdiag reindex` replays the same records through it. Attribution is exclusive: a
moment belongs to the innermost named region around it (`STAGE_OF`), so a compile's stages
never add up to more than its wall clock, and what no named region covers is `unaccounted`
(torch's own glue: frame set-up, bytecode rewriting, guard installation outside build_guards)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

from compdiag.formats import lazy_re
from compdiag.formats.compile_id import CompileId

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
    """One closed region (or an instant, dur_us None) of one compile id. `clocks`: the compile
    ids whose stage clocks this closing changed (an outermost region split between a frame's
    attempts changes two)."""

    compile_id: str | None
    name: str
    cat: str | None
    start_us: float
    dur_us: float | None
    depth: int
    stage: str | None
    args: dict[str, Any] = field(default_factory=dict)
    clocks: tuple[str | None, ...] = ()


@dataclass
class _Open:
    name: str
    cat: str | None
    start_us: float
    args: dict[str, Any]
    clock: str | None  # the compile id its time counts for
    # time of named regions inside it (what it does not own), per compile id
    covered: dict[str | None, float] = field(default_factory=dict)


@dataclass
class CompileClock:
    """What one compile id's closed outermost regions add up to."""

    stages: dict[str, float] = field(default_factory=dict)
    total_us: float = 0.0

    def add(self, stage: str, us: float) -> None:
        if us > 0:
            self.stages[stage] = self.stages.get(stage, 0.0) + us


# torch times each try of a frame compile as `compile_attempt_N` inside the frame's regions,
# all under the first try's compile id ('0/0'); try N >= 1 is the restart torch calls '0/0_N'.
_ATTEMPT = lazy_re.compile(r"compile_attempt_(\d+)")


def attempt_id(cid: str | None, name: str) -> str | None:
    """The compile id a `compile_attempt_N` region (N >= 1) of compile `cid` stands for, else
    None: '0/0' + 'compile_attempt_1' -> '0/0_1', '0/0@1' -> '0/0_1@1' (an id that already
    names its attempt, as a torch that tags the restart's own events gives, is left alone)."""
    m = _ATTEMPT.fullmatch(name)
    parsed = CompileId.of(cid)
    if m is None or parsed is None or parsed.attempt or int(m.group(1)) < 1:
        return None
    return str(replace(parsed, attempt=int(m.group(1))))


class Timeline:
    """Pairs B/E events per (compile id, thread) and keeps each compile's stage clock. Feed
    events with `event()`; it yields the intervals that closed. An E without its B (a log cut
    at the start) and a B never closed (a killed process) attribute nothing.

    A graph break restarts the frame's compile: from the moment `compile_attempt_N` opens,
    what follows in that frame compile counts for attempt N ('0/0_1': the restart, its guards
    included), what came before for the attempt that broke ('0/0'), so each moment counts for
    one compile id and the attempts of a frame add up to its wall time (issue 30)."""

    def __init__(self) -> None:
        self.open: dict[tuple[str | None, Any], list[_Open]] = {}
        self.clocks: dict[str | None, CompileClock] = {}
        # (compile id, thread) -> [(from us, the compile id that owns the time from then)]
        self.splits: dict[tuple[str | None, Any], list[tuple[float, str]]] = {}

    def event(self, ev: dict[str, Any]) -> Iterator[Interval]:
        ph, name, ts = ev.get("ph"), ev.get("name"), ev.get("ts")
        if not isinstance(name, str) or not isinstance(ts, (int, float)) or isinstance(ts, bool) \
                or not math.isfinite(ts):
            return
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        cid = args.get("compile_id") if isinstance(args.get("compile_id"), str) else None
        tid = ev.get("tid") if isinstance(ev.get("tid"), (int, str)) else None
        if cid in (None, "", "None"):  # torch's str(None): a region outside any compile context
            cid = self._host(tid)
        key = (cid, tid)
        stack = self.open.setdefault(key, [])
        cat = ev.get("cat") if isinstance(ev.get("cat"), str) else None
        if not stack:
            self.splits.pop(key, None)  # a frame compile that never closed left its cuts
        splits = self.splits.get(key)
        clock = splits[-1][1] if splits else cid
        if ph == "B":
            attempt = attempt_id(cid, name)
            if attempt is not None and not any(stage_of(o.name) for o in stack):
                # (inside a named region the cut would split that region's own time: not
                # where torch opens an attempt, and then the attempt is not told apart)
                self.splits.setdefault(key, []).append((float(ts), attempt))
                clock = attempt
            stack.append(_Open(name, cat, float(ts), dict(args), clock))
        elif ph == "E":
            at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].name == name), None)
            if at is None:
                return
            region = stack[at]
            del stack[at:]  # regions left open inside it never closed: drop them
            dur = max(0.0, float(ts) - region.start_us)
            yield self._close(key, stack, region, dur, {**region.args, **args})
        elif ph == "X" and isinstance(ev.get("dur"), (int, float)) \
                and not isinstance(ev.get("dur"), bool) and math.isfinite(ev["dur"]):
            region = _Open(name, cat, float(ts), dict(args), clock)
            yield self._close(key, stack, region, max(0.0, float(ev["dur"])), dict(args))
        elif ph in ("i", "I", "n"):
            yield Interval(clock, name, cat, float(ts), None, len(stack), None, dict(args))

    def _host(self, tid: Any) -> str | None:
        """The compile a region with no compile id happens inside: the one whose regions are
        open on the same thread, latest first (a kernel's compile_file inside a compile's
        codegen, torch 2.13 tags it 'None'); None when no compile is open there."""
        open_here = [(stack[-1].start_us, c) for (c, t), stack in self.open.items()
                     if t == tid and stack and c is not None]
        return max(open_here, key=lambda x: x[0])[1] if open_here else None

    def _close(self, key: tuple[str | None, Any], stack: list[_Open], region: _Open, dur: float,
               args: dict[str, Any]) -> Interval:
        stage = stage_of(region.name)
        clock = self.clocks.setdefault(region.clock, CompileClock())
        own = dur - min(dur, sum(region.covered.values()))
        if stage is not None:
            clock.add(stage, own)
            covered = {region.clock: dur}
        else:
            covered = region.covered
        changed: tuple[str | None, ...] = (region.clock,)
        if stack:
            for c, us in covered.items():
                stack[-1].covered[c] = stack[-1].covered.get(c, 0.0) + us
        else:  # an outermost region: its wall time is the compiles', the rest unaccounted
            changed = self._charge(key, region, dur, covered)
        return Interval(region.clock, region.name, region.cat, region.start_us, dur, len(stack),
                        stage, args, changed)

    def _charge(self, key: tuple[str | None, Any], region: _Open, dur: float,
                covered: dict[str | None, float]) -> tuple[str | None, ...]:
        """An outermost region's wall time, cut where each restart attempt began: each part
        to its compile id's total, what no named region covers in it to its unaccounted."""
        end = region.start_us + dur
        cuts = [(at, c) for at, c in self.splits.pop(key, []) if region.start_us <= at <= end]
        parts: dict[str | None, float] = {}  # compile id -> its share of the region
        start, owner = region.start_us, region.clock
        for at, c in cuts:
            parts[owner] = parts.get(owner, 0.0) + at - start
            start, owner = at, c
        parts[owner] = parts.get(owner, 0.0) + end - start
        for c, us in parts.items():
            clock = self.clocks.setdefault(c, CompileClock())
            clock.total_us += us
            clock.add(UNACCOUNTED, us - min(us, covered.get(c, 0.0)))
        for c, us in covered.items():  # named time of a compile id with no part of its own
            if c not in parts:
                self.clocks.setdefault(c, CompileClock()).total_us += us
        return tuple(parts)


# A chromium event's args kept with its interval: not the cache key's components (they are
# in cache_keys, and hundreds of lines long).
_EVENT_ARGS_DROPPED = ("components",)
_EVENT_ARGS_LIMIT = 4000


def event_args(args: dict[str, Any], compile_id: str) -> str:
    """A region's args as JSON, without the cache key's components and, past a few KB, without
    its large values (whole JSON either way: never cut in the middle); without its compile id
    where that is the row's (most regions: the Reader puts it back)."""
    kept = {k: v for k, v in args.items() if k not in _EVENT_ARGS_DROPPED
            and not (k == "compile_id" and v == compile_id)}
    text = json.dumps(kept, default=repr)
    if len(text) > _EVENT_ARGS_LIMIT:
        text = json.dumps({k: v for k, v in kept.items()
                           if len(json.dumps(v, default=repr)) <= 200}, default=repr)
    return text
