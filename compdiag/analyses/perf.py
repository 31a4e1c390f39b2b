"""`compdiag perf`: per compiled graph, eager vs compiled time on the graph's real inputs, the
speed-up with its confidence interval, compile time and the calls it takes to pay it back;
what limits the speed-up; and, across modes, which torch.compile mode wins.

Reads the store through the Reader API only. The timings are the capture's raw samples
(capture/perf_timing.py); everything else (graph breaks, recompiles, fallbacks, fusion misses,
CUDA-graph skips) comes from what the run already recorded, diagnosed by `explain` (reused,
not re-derived here); this module adds how much of the measured time each one touches.

Impact estimates are labelled by how they were obtained: `measured` (from the timings alone),
`structural` (the store's facts weighted by the measured time share of the graphs they touch).
"""

from __future__ import annotations

import math
import re
import statistics
from typing import Any

from compdiag.analyses import perf_stats as S
from compdiag.analyses.compile_time import for_run as compile_time_for_run
from compdiag.analyses.context import RunContext
from compdiag.analyses.cudagraph_coverage import coverage
from compdiag.analyses.diagnosis import Diagnosis
from compdiag.analyses.library_calls import is_library_call
from compdiag.analyses.limiter import Limiter, TimedRun, merged, with_consequences
from compdiag.analyses.limiter import weight as _weight
from compdiag.analyses.perf_outside import outside_graphs as _outside_graphs
from compdiag.analyses.perf_outside import outside_limiter as _outside_limiter
from compdiag.analyses.registry import KindFault, call_each, plugin_manager
from compdiag.store.reader import Reader

# Per-kernel dispatch cost used by the launch-overhead estimate (seconds). CPU: a call from
# Inductor's Python wrapper into a compiled C++ kernel; CUDA: a kernel launch from Python.
LAUNCH_COST = {"cpu": 4e-6, "cuda": 6e-6}
# Peak DRAM bandwidth (bytes/s) by device-name substring, for the GPU roofline check.
GPU_BANDWIDTH = {"H200": 4.8e12, "H100": 3.35e12, "A100": 2.0e12, "L40S": 0.864e12,
                 "A10G": 0.6e12, "L4": 0.3e12, "V100": 0.9e12, "T4": 0.32e12}
MEMORY_BOUND_FRACTION = 0.5  # achieved/peak bandwidth above which a graph is memory-bound

_FALLBACK_OP = re.compile(r"aten\.(\w+)")


# -- per graph ---------------------------------------------------------------------------------
def _samples(p: dict[str, Any]) -> tuple[list[float], list[float]]:
    """A perf_graphs / perf_calls row's raw (eager, compiled) per-call seconds."""
    return p.get("eager_s") or [], p.get("compiled_s") or []


def _summaries(eager: list[float], compiled: list[float]
               ) -> tuple[S.Summary | None, S.Summary | None, S.SpeedUp]:
    """Each side's summary (None without samples) and the speed-up of one timed thing."""
    return (S.summarize(eager) if eager else None, S.summarize(compiled) if compiled else None,
            S.speedup(eager, compiled))


def _graph_row(p: dict[str, Any], compile_row: dict[str, Any] | None,
               kernels: list[dict[str, Any]]) -> dict[str, Any]:
    es, cs, sp = _summaries(*_samples(p))
    stage = (compile_row or {}).get("stage_times") or {}
    compile_s = stage.get("total")
    if compile_s is None and stage:
        compile_s = sum(v for k, v in stage.items() if k in ("dynamo", "inductor"))
    by_backend: dict[str, int] = {}
    fallbacks, library = [], []
    for k in kernels:
        by_backend[k["backend"]] = by_backend.get(k["backend"], 0) + 1
        if k["backend"] == "extern":
            (library if is_library_call(k["name"]) else fallbacks).append(k["name"])
    return {
        "compile_id": p["compile_id"],
        "function": (compile_row or {}).get("co_name"),
        "filename": (compile_row or {}).get("filename"),
        "lineno": (compile_row or {}).get("lineno"),
        "calls": p.get("calls"),
        "device": p.get("device"), "timer": p.get("timer"), "inner": p.get("inner"),
        "grad_enabled": p.get("grad_enabled"),
        "input_bytes": p.get("input_bytes"), "output_bytes": p.get("output_bytes"),
        "output_copy_s": p.get("output_copy_s"),
        "eager": es.as_dict() if es else None,
        "compiled": cs.as_dict() if cs else None,
        "speedup": sp.as_dict(),
        "compile_s": compile_s,
        "payback_calls": S.payback_calls(compile_s, es.median if es else None,
                                         cs.median if cs else None)
        if sp.verdict == "faster" else None,
        "kernels": by_backend,
        "fallbacks": fallbacks,
        "library_calls": library,
        "error": p.get("error"),
    }


def _weighted_speedup(items: list[tuple[int, list[float], list[float]]]
                      ) -> tuple[float, float, dict[str, Any]]:
    """(eager time, compiled time, speed-up dict) of several timed things, each weighted by its
    calls (time = calls x median); the interval resamples every thing's pairs."""
    eager_t = sum(w * S.median(e) for w, e, _ in items)
    comp_t = sum(w * S.median(c) for w, _, c in items)
    if not all(len(e) >= S.MIN_SAMPLES and len(c) >= S.MIN_SAMPLES for _, e, c in items):
        return eager_t, comp_t, S.SpeedUp(None, None, None, "too few samples", True,
                                          None).as_dict()
    import random

    rng = random.Random(S.SEED)
    stats = []
    for _ in range(S.BOOTSTRAP // 2):
        e_sum = c_sum = 0.0
        for w, e, c in items:
            idx = [rng.randrange(len(e)) for _ in range(len(e))]
            e_sum += w * S.median([e[i] for i in idx])
            c_sum += w * S.median([c[i] for i in idx if i < len(c)] or c)
        stats.append(e_sum / c_sum if c_sum > 0 else math.inf)
    a = (1 - S.CONFIDENCE) / 2
    lo, hi = S.quantile(stats, a), S.quantile(stats, 1 - a)
    ratio = eager_t / comp_t if comp_t > 0 else math.inf
    return eager_t, comp_t, S.SpeedUp(ratio, lo, hi, S.verdict(lo, hi), True,
                                      (hi - lo) / 2 / ratio if ratio else None).as_dict()


def _totals(graphs: list[dict[str, Any]], samples: dict[str, tuple[list, list]],
            compiles: list[dict[str, Any]]) -> dict[str, Any]:
    """Time the run spent in its compiled graphs (calls x median), eager vs compiled, with a
    bootstrap interval that resamples every graph's pairs."""
    timed = [g for g in graphs if g["eager"] and g["compiled"]]
    compile_total = sum((c.get("stage_times") or {}).get("total") or 0.0 for c in compiles)
    tuned = [(c.get("stage_times") or {}).get("autotune") for c in compiles]
    out: dict[str, Any] = {"graphs_timed": len(timed), "compiles": len(compiles),
                           "compile_s": compile_total,
                           # Inductor's own account (compile_time_autotune_time_us): under
                           # max-autotune most of a cold compile can be kernel benchmarking.
                           "autotune_s": sum(t for t in tuned if t is not None)
                           if any(t is not None for t in tuned) else None}
    if not timed:
        return out
    eager_t, comp_t, sp = _weighted_speedup(
        [(_weight(g), *samples[g["compile_id"]]) for g in timed])
    out.update(eager_s=eager_t, compiled_s=comp_t, speedup=sp)
    saved = eager_t - comp_t
    out["payback_runs"] = math.ceil(compile_total / saved) if saved > 0 and \
        sp["verdict"] == "faster" else None
    return out


# -- whole module calls ------------------------------------------------------------------------
def _module_row(p: dict[str, Any]) -> dict[str, Any]:
    es, cs, sp = _summaries(*_samples(p))
    return {"target": p["target"], "calls": p.get("calls"), "at_call": p.get("at_call"),
            "device": p.get("device"), "timer": p.get("timer"), "inner": p.get("inner"),
            "grad_enabled": p.get("grad_enabled"),
            "eager": es.as_dict() if es else None, "compiled": cs.as_dict() if cs else None,
            "speedup": sp.as_dict(), "error": p.get("error")}


def _module_totals(modules: list[dict[str, Any]], samples: dict[str, tuple[list, list]]
                   ) -> dict[str, Any] | None:
    timed = [m for m in modules if m["eager"] and m["compiled"]]
    if not timed:
        return None
    eager_t, comp_t, sp = _weighted_speedup([(_weight(m), *samples[m["target"]])
                                             for m in timed])
    return {"modules_timed": len(timed), "eager_s": eager_t, "compiled_s": comp_t,
            "speedup": sp}


# -- limiters ---------------------------------------------------------------------------------
def limiters(graphs: list[dict[str, Any]], diagnoses: list[Diagnosis],
             compiles: list[dict[str, Any]], outside: dict[str, Any] | None = None,
             faults: list[KindFault] | None = None) -> list[dict[str, Any]]:
    """What keeps the compiled run from being faster, most impact first.

    Each diagnosis is costed by its own kind (the `compdiag_limiter` hook of its module in
    analyses/diagnoses/); what only the timings show (extern fallbacks no hint named, launch
    overhead, the memory roofline, time outside the graphs) is measured here."""
    run = TimedRun(graphs, compiles)
    timed, share = run.timed, run.share
    hook = plugin_manager().hook.compdiag_limiter
    found: list[Limiter] = []
    faults = [] if faults is None else faults
    for d in with_consequences(diagnoses):
        found += call_each(hook, faults, firstresult=True, diagnosis=d, timings=run)

    # Fallback/extern calls the kernels table shows but no perf hint named (cached compiles
    # emit no hints).
    named = {(lim.op, c) for lim in found if lim.kind == "fallback" for c in lim.compile_ids}
    for g in timed:
        for name in g["fallbacks"]:
            m = _FALLBACK_OP.search(name)
            op = m.group(1) if m else name
            if (op, g["compile_id"]) in named:
                continue
            named.add((op, g["compile_id"]))
            found.append(Limiter("fallback", run.fallback_impact([g]), "structural",
                                 f"{name} is an extern call (no Inductor lowering fused it)",
                                 f"compiled graph {g['compile_id']} calls {name} outside its "
                                 "generated kernels", (g["compile_id"],),
                                 "check for a decomposition or rewrite the op with ones "
                                 "Inductor lowers", None))

    # Launch/dispatch overhead: many kernels, each doing little (measured time per kernel). A
    # graph replayed as a CUDA graph launches once, whatever its kernel count.
    for g in timed:
        if g.get("cudagraph_applied"):
            continue
        n = sum(g["kernels"].values())
        dev = "cuda" if str(g.get("device") or "").startswith("cuda") else "cpu"
        med = g["compiled"]["median"]
        if n == 0 or med <= 0:
            continue
        overhead = n * LAUNCH_COST[dev]
        frac = min(1.0, overhead / med)
        if frac >= 0.2:
            found.append(Limiter(
                "launch_overhead", share([g]) * frac, "measured",
                f"{n} kernels in {S.fmt_time(med)} per call ({S.fmt_time(med / n)} per kernel)",
                f"about {frac:.0%} of graph {g['compile_id']}'s time is kernel dispatch "
                f"({n} x ~{LAUNCH_COST[dev] * 1e6:.0f} us); the work per call is too small",
                (g["compile_id"],),
                "batch more work per call; " + (
                    "on CUDA, mode='reduce-overhead' (CUDA graphs) removes the launches"
                    if dev == "cuda" else "on the CPU, fewer, larger kernels: compile a "
                    "larger region so more ops fuse"), g.get("call_frame")))

    # GPU roofline: bytes in + out over the measured time against the device's bandwidth.
    for g in timed:
        bw = device_bandwidth(g.get("device_name") or "")
        moved = (g.get("input_bytes") or 0) + (g.get("output_bytes") or 0)
        if not bw or not moved or not str(g.get("device") or "").startswith("cuda"):
            continue
        achieved = moved / g["compiled"]["median"]
        if achieved >= MEMORY_BOUND_FRACTION * bw:
            found.append(Limiter(
                "memory_bound", share([g]) * 0.5, "measured",
                f"graph {g['compile_id']} moves {moved / 1e6:.1f} MB per call at "
                f"{achieved / 1e9:.0f} GB/s, {achieved / bw:.0%} of the device's "
                f"{bw / 1e9:.0f} GB/s", "at the memory roofline: only moving fewer bytes "
                "(lower precision, fewer materialised intermediates) makes it faster",
                (g["compile_id"],), "use bf16/fp16 activations or fuse away intermediates",
                None))

    # Time outside the compiled graphs, measured: the whole compiled call minus its graphs.
    if outside and outside["outside_frac"] >= 0.1:
        found.append(_outside_limiter(outside, graphs, compiles))

    out = [lim.to_json() for lim in merged(found)]
    out.sort(key=lambda lim: -lim["impact"])
    return out


def device_bandwidth(name: str) -> float | None:
    for key, bw in GPU_BANDWIDTH.items():
        if key.lower() in name.lower():
            return bw
    return None


# -- the report --------------------------------------------------------------------------------
class _Timings:
    """A run's timed graphs and whole module calls with their raw samples: what both a full
    report and a repeat process' summary are computed from."""

    def __init__(self, reader: Reader, run_id: int) -> None:
        self.compiles = reader.compiles(run_id)
        by_cid = {c["compile_id"]: c for c in self.compiles}
        kernels: dict[str | None, list[dict[str, Any]]] = {}
        for k in reader.kernels(run_id, with_source=False):
            kernels.setdefault(k["compile_id"], []).append(k)
        self.samples: dict[str, tuple[list, list]] = {}
        self.graphs: list[dict[str, Any]] = []
        for p in reader.perf_graphs(run_id):
            self.graphs.append(_graph_row(p, by_cid.get(p["compile_id"]),
                                          kernels.get(p["compile_id"], [])))
            self.samples[p["compile_id"]] = _samples(p)
        calls = reader.perf_calls(run_id)
        self.modules = [_module_row(p) for p in calls]
        self.module_samples = {p["target"]: _samples(p) for p in calls}

    def totals(self) -> dict[str, Any]:
        return _totals(self.graphs, self.samples, self.compiles)

    def module_totals(self) -> dict[str, Any] | None:
        return _module_totals(self.modules, self.module_samples)


def report(reader: Reader, run_id: int) -> dict[str, Any]:
    """The perf report of one run: graphs, totals, limiters (the `--json` document's body)."""
    from compdiag.analyses.explain import explain_folded

    run = reader.run(run_id)
    t = _Timings(reader, run_id)
    compiles, graphs, samples, modules = t.compiles, t.graphs, t.samples, t.modules
    perf_run = reader.perf_run(run_id) or {}
    for g in graphs:
        for op in reader.fallback_calls(run_id, g["compile_id"]):
            if op not in g["fallbacks"] and not is_library_call(op):
                g["fallbacks"].append(op)
        g["device_name"] = perf_run.get("device")
    applied = {c["compile_id"] for c in reader.cudagraphs(run_id) if c.get("applied")}
    ctx = RunContext(reader, run_id)
    for g in graphs:
        g["cudagraph_applied"] = g["compile_id"] in applied
        # the user's call into the graph: where "more work per call" is done (probes46e
        # cartpole_policy_per_env_calls: the launch-overhead limiter named no line)
        chain = ctx.call_chain(g["compile_id"])
        g["call_frame"] = chain[-1] if chain else None
    outside = _outside_graphs(modules, graphs)
    if outside is not None:
        outside["cudagraphs_applied"] = len(applied)
    faults: list[KindFault] = []
    try:
        diagnoses, _, faults = explain_folded(reader, run_id)
    except Exception as exc:  # noqa: BLE001 - limiters degrade to the timings alone
        diagnoses = []
        reader_warning = f"explain failed ({type(exc).__name__}: {exc}); limiters from timings only"
    else:
        reader_warning = None
    found_limiters = limiters(graphs, diagnoses, compiles, outside, faults)
    notes = [f.line() for f in dict.fromkeys(faults)]
    if reader_warning:
        notes.append(reader_warning)
    if any(g.get("grad_enabled") for g in graphs) or any(m.get("grad_enabled")
                                                         for m in modules):
        notes.append("graphs and modules called with autograd on were timed forward only (the "
                     "backward graph's time is not included)")
    if any(g["speedup"]["verdict"] == "within noise" for g in graphs):
        notes.append("'within noise': the 95% interval of the speed-up contains 1.0; the "
                     "difference is smaller than the timing noise")
    for g in graphs:
        if g["error"]:
            notes.append(f"graph {g['compile_id']} could not be timed: {g['error']}")
    for m in modules:
        if m["error"]:
            notes.append(f"whole calls of {m['target']} could not be timed: {m['error']}")
    if graphs and not any(m["eager"] for m in modules):
        notes.append("no whole-call timing (it needs a torch.compile'd nn.Module called at "
                     "least twice): the speed-up is the compiled graphs' alone, without "
                     "Dynamo's guards and the Python around and between the graphs")
    untimed = [c["compile_id"] for c in compiles if c["compile_id"] not in samples
               and c.get("status") in ("ok", "graph_break")
               and (c.get("stage_times") or {}).get("inductor")]
    if untimed:
        notes.append(f"compiled but never called (not timed): {', '.join(untimed[:8])}")
    return {
        "run": run_id,
        "mode": perf_run.get("mode") or run.get("mode") or "default",
        "exit_code": run.get("exit_code"),
        "device": perf_run.get("device") or run.get("device"),
        "peak_rss_bytes": perf_run.get("peak_rss_bytes"),
        "peak_cuda_bytes": perf_run.get("peak_cuda_bytes"),
        "settings": perf_run.get("settings"),
        "graphs": graphs,
        "totals": t.totals(),
        "modules": modules,
        "module_totals": t.module_totals(),
        "outside_graphs": outside,
        "limiters": found_limiters,
        "cudagraph_coverage": coverage(reader, run_id, graphs),
        "notes": notes,
        "compile_time": compile_time_for_run(reader, run_id),
    }


# -- modes -------------------------------------------------------------------------------------
def compare_modes(reports: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One row per mode and a recommendation with its reasons.

    Steady-state time = the run's time in whole calls of its compiled modules (calls x median),
    or, without those, in its compiled graphs; the speed-up over eager is measured inside each
    mode's own process (paired), so it does not depend on the load of the other processes; comparing two modes' absolute times does, and is judged
    against both runs' intervals."""
    rows = []
    for mode, rep in reports.items():
        t = rep.get("totals") or {}
        basis, src = _basis(rep)
        sp = src.get("speedup") or {}
        cg = [g for g in rep.get("graphs") or [] if g.get("compile_id")]
        row = {"mode": mode, "run": rep.get("run"), "compile_s": t.get("compile_s"),
               "autotune_s": t.get("autotune_s"), "basis": basis,
               "steady_s": src.get("compiled_s"), "eager_s": src.get("eager_s"),
               "graphs_speedup": (t.get("speedup") or {}).get("ratio"),
               "speedup": sp.get("ratio"), "speedup_lo": sp.get("lo"),
               "speedup_hi": sp.get("hi"), "verdict": sp.get("verdict"),
               "peak_rss_bytes": rep.get("peak_rss_bytes"),
               "peak_cuda_bytes": rep.get("peak_cuda_bytes"),
               "graphs": len(cg), "exit_code": rep.get("exit_code"),
               "cudagraphs": rep.get("cudagraphs"), **_kernel_mix(rep),
               "limiters": [{k: lim.get(k) for k in ("kind", "impact", "reason")}
                            for lim in (rep.get("limiters") or [])[:5]]}
        _across_processes(row, rep.get("repeats") or [])
        rows.append(row)
    return {"rows": rows, "recommendation": recommend(rows)}


def _kernel_mix(rep: dict[str, Any]) -> dict[str, Any]:
    """What a mode's graphs run: kernels by backend and library calls by op, summed over its
    graphs, so two modes' code can be told apart (max-autotune turned resnet50's 1x1
    convolutions into 32 mm calls)."""
    kernels: dict[str, int] = {}
    library: dict[str, int] = {}
    for g in rep.get("graphs") or []:
        for k, n in (g.get("kernels") or {}).items():
            kernels[k] = kernels.get(k, 0) + n
        for call in g.get("library_calls") or []:
            op = str(call).rsplit(".", 1)[-1]
            library[op] = library.get(op, 0) + 1
    return {"kernels": kernels, "library_calls": library}


def _mix_change(r: dict[str, Any], base: dict[str, Any]) -> str:
    """`mm 0 -> 32, convolution 53 -> 20, triton kernels 24 -> 28`, empty when the same."""
    parts = []
    for key, label in (("library_calls", ""), ("kernels", " kernels")):
        a, b = base.get(key) or {}, r.get(key) or {}
        for name in sorted(set(a) | set(b), key=lambda n: -max(a.get(n, 0), b.get(n, 0))):
            if a.get(name, 0) != b.get(name, 0):
                parts.append(f"{name}{label} {a.get(name, 0)} -> {b.get(name, 0)}")
    return ", ".join(parts)


def _new_limiter(r: dict[str, Any], base: dict[str, Any]) -> dict[str, Any] | None:
    """The mode's top limiter when the baseline has none of its kind and reason (the text
    before the first colon: op numbers differ between graphs)."""
    def key(lim: dict[str, Any]) -> tuple[str, str]:
        return str(lim.get("kind")), str(lim.get("reason") or "").split(":", 1)[0]

    lims = r.get("limiters") or []
    if not lims or key(lims[0]) in {key(b) for b in base.get("limiters") or []}:
        return None
    return lims[0]


def _basis(rep: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Whole module calls are what the user's program sees; the graphs alone leave out the
    guards and the Python around them (a launch-bound model's eager Python above all)."""
    mt = rep.get("module_totals") or {}
    if (mt.get("speedup") or {}).get("ratio") is not None:
        return "whole calls", mt
    return "compiled graphs", rep.get("totals") or {}


def repeat_summary(reader: Reader, run_id: int) -> dict[str, Any]:
    """What a mode's later process (`--repeat`) adds to its row: its own paired speed-up. Only
    its timings are read: its limiters would repeat the first process' (same cache, same
    kernels), so neither explain nor the generated code is needed for it."""
    t = _Timings(reader, run_id)
    basis, src = _basis({"totals": t.totals(), "module_totals": t.module_totals()})
    sp = src.get("speedup") or {}
    return {"run": run_id, "exit_code": (reader.run(run_id) or {}).get("exit_code"),
            "basis": basis,
            "eager_s": src.get("eager_s"), "compiled_s": src.get("compiled_s"),
            "speedup": sp.get("ratio"), "speedup_lo": sp.get("lo"), "speedup_hi": sp.get("hi")}


def _across_processes(row: dict[str, Any], repeats: list[dict[str, Any]]) -> None:
    """A mode timed in several processes: its speed-up is their median, its range spans every
    process' interval, so the recommendation needs a gain beyond the noise between processes
    too, which no interval from inside one process can show."""
    same = [q for q in repeats if q.get("basis") == row["basis"] and q.get("speedup")
            and q.get("exit_code") in (0, None)]
    if not same or row.get("speedup") is None:
        return
    procs = [row] + same
    row["processes"] = [q["speedup"] for q in procs]
    row["speedup"] = statistics.median(row["processes"])
    los = [q["speedup_lo"] for q in procs if q.get("speedup_lo") is not None]
    his = [q["speedup_hi"] for q in procs if q.get("speedup_hi") is not None]
    row["speedup_lo"], row["speedup_hi"] = (min(los) if los else None), (max(his) if his else None)
    lo, hi = row["speedup_lo"], row["speedup_hi"]
    if lo is not None and hi is not None:
        row["verdict"] = "faster" if lo > 1 else "slower" if hi < 1 else "within noise"
    # The same program's eager time in each process: how much the machine itself moved.
    eagers = [q["eager_s"] for q in procs if q.get("eager_s")]
    if len(eagers) > 1:
        row["eager_spread"] = max(eagers) / min(eagers) - 1


def _cost(r: dict[str, Any], base: dict[str, Any]) -> str:
    """`6.2x the compile time`, and how much of it was autotuning when that is a real part."""
    if not base.get("compile_s"):
        return ""
    text = f"{(r.get('compile_s') or 0) / base['compile_s']:.1f}x the compile time"
    tuned = S.autotune_share(r)
    if tuned:
        text += f" ({S.fmt_time(tuned)} of its {S.fmt_time(r['compile_s'])} is autotuning)"
    return text


def _why_slower(r: dict[str, Any], base: dict[str, Any]) -> list[str]:
    """What differs in a mode that lost to the baseline: its kernels, and a limiter the
    baseline does not have. Facts from the store, not a proof of the cause."""
    out = []
    change = _mix_change(r, base)
    if change:
        out.append(f"{r['mode']} runs other kernels than {base['mode']}: {change}")
    lim = _new_limiter(r, base)
    if lim:
        out.append(f"{r['mode']}'s top limiter, which {base['mode']} does not have: "
                   f"{lim['kind']} ({(lim.get('impact') or 0):.0%}) {lim.get('reason')}")
    return out


def recommend(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The mode to use, and why. A mode beats the baseline only when its speed-up interval
    lies wholly above the baseline's; otherwise the cheaper compile wins."""
    ok = [r for r in rows if r.get("speedup") is not None and r.get("exit_code") in (0, None)]
    if not ok:
        return {"mode": None, "reasons": ["no mode produced enough timings to compare"]}
    base = next((r for r in ok if r["mode"] == "default"), None) or \
        min(ok, key=lambda r: r.get("compile_s") or math.inf)
    best = base
    reasons = []
    for r in ok:
        if r is base:
            continue
        if (r["speedup_lo"] or 0) > (base["speedup_hi"] or math.inf):
            gain = r["speedup"] / base["speedup"] - 1
            cost = _cost(r, base)
            reasons.append(f"{r['mode']}: {r['speedup']:.2f}x over eager vs {base['speedup']:.2f}x "
                           f"({gain:+.0%})" + (f" for {cost}" if cost else ""))
            if best is base or r["speedup"] > best["speedup"]:
                best = r
        else:
            # Wholly below the baseline is a finding of its own (max-autotune's autotuned
            # kernels lost to default's end to end on resnet50), not "no gain".
            slower = (r["speedup_hi"] or math.inf) < (base["speedup_lo"] or 0)
            verdict = (f"{r['speedup'] / base['speedup'] - 1:+.0%}, slower beyond the noise"
                       if slower else "no gain beyond the noise")
            cost = _cost(r, base)
            reasons.append(f"{r['mode']}: {r['speedup']:.2f}x over eager "
                           f"[{r['speedup_lo']:.2f}-{r['speedup_hi']:.2f}] vs {base['mode']} "
                           f"{base['speedup']:.2f}x [{base['speedup_lo']:.2f}-"
                           f"{base['speedup_hi']:.2f}]: {verdict}"
                           + (f", {cost}" if cost else ""))
            if slower:
                reasons += _why_slower(r, base)
    for r in ok:
        cg = r.get("cudagraphs") or {}
        n = (cg.get("applied") or 0) + (cg.get("skipped") or 0)
        if r["mode"] == "reduce-overhead" and n:
            reasons.append(f"reduce-overhead: CUDA graphs applied to {cg.get('applied') or 0}/"
                           f"{n} graphs")
    if best is base:
        cheapest = all((base.get("compile_s") or math.inf) <= (r.get("compile_s") or math.inf)
                       for r in ok)
        reasons.insert(0, f"{base['mode']}: {base['speedup']:.2f}x over eager"
                          + (" with the cheapest compile" if cheapest else "")
                          + "; no other mode is faster beyond the noise")
    caveats = ["speed-ups are paired within each mode's own process; absolute steady-state "
               "times of different modes come from different processes and moments, so on a "
               "loaded machine compare the speed-ups, not the times",
               "compile time is one measurement per mode (a compile is not repeated)"]
    n = max(len(r.get("processes") or [None]) for r in ok)
    for r in ok:
        if (r.get("eager_spread") or 0) >= 0.05:
            caveats.append(f"eager itself took {r['eager_spread']:.0%} longer in one of "
                           f"{r['mode']}'s processes than in another: the machine moved, not "
                           "the compile; the range includes it")
    caveats.append(f"each mode's range spans the intervals of its {n} processes (--repeat), so "
                   "it includes the noise between processes" if n > 1 else
                   "one process per mode: an interval from inside one process cannot show how "
                   "much another process of the same program differs; --repeat 3 measures it")
    return {"mode": best["mode"], "reasons": reasons, "caveats": caveats}
