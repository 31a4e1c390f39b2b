"""Where compile wall time went, per compile id and per run, reconciled with the run's wall
clock (vLLM #27815: "compile took 47 s" while 8 minutes passed).

The stages come from torch's own timed regions (ingest/timeline.py: each moment counts for the
innermost named region), so per compile `sum(stages) + unaccounted == total` holds by
construction and `total` is the compile's wall clock. A store without chromium events (an
older torch, a log without them) falls back to compilation_metrics' nested timers, which name
fewer stages. Where the two clocks disagree, or kernels compiled in worker processes, a
`note` says so instead of pretending the numbers add up."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.compile_id import first_attempt
from compdiag.ingest.timeline import STAGES, UNACCOUNTED
from compdiag.store.reader import Reader

# The metrics clock and the regions' clock disagree when they differ by more than this
# (torch's duration_us includes what happens after the last region closes: logging, metrics).
DISAGREE_FRACTION, DISAGREE_S = 0.10, 0.25
TOP_GUARD_SOURCES = 5
TOP_FUNCTIONS = 10  # the user functions whose compiles took longest (cf. TORCH_COMPILE_DYNAMO_PROFILER)
_INDEX = re.compile(r"\[(?:'\d+'|\d+)\]")


def _r(x: float) -> float:
    return round(x, 6)


def _stage_order(name: str) -> int:
    return STAGES.index(name) if name in STAGES else len(STAGES)


def _from_regions(stages: dict[str, float]) -> dict[str, Any]:
    named = {k: v for k, v in stages.items() if k != UNACCOUNTED}
    unaccounted = stages.get(UNACCOUNTED, 0.0)
    total = _r(sum(named.values()) + unaccounted)
    rounded = {k: _r(named[k]) for k in sorted(named, key=_stage_order)}
    return {"total_s": total, "stages": rounded,
            "unaccounted_s": _r(total - sum(rounded.values())), "source": "chromium_events"}


def _from_metrics(st: dict[str, Any]) -> dict[str, Any] | None:
    """compilation_metrics' nested timers (total > backend > inductor > codegen) as exclusive
    stages; what the outermost does not split further is Dynamo's (tracing, guards)."""
    total = st.get("total")
    if not isinstance(total, (int, float)):
        return None
    nested = [("backend", "aot_autograd"), ("inductor", "inductor"),
              ("inductor_codegen", "scheduling_codegen")]
    stages: dict[str, float] = {}
    outer, outer_name = float(total), "dynamo"
    for key, name in nested:
        inner = st.get(key)
        if not isinstance(inner, (int, float)):
            continue
        stages[outer_name] = max(0.0, outer - inner)
        outer, outer_name = float(inner), name
    stages[outer_name] = outer
    named = {k: _r(v) for k, v in stages.items() if v > 0}
    return {"total_s": _r(total), "stages": named,
            "unaccounted_s": _r(total - sum(named.values())), "source": "metrics"}


def collapse_source(source: str) -> str:
    """L['self']._modules['layers']._modules['3'].weight -> ..._modules[*].weight: the guards
    of a hundred list entries add up to one source."""
    return _INDEX.sub("[*]", source)


def guards(reader: Reader, run_id: int, c: dict[str, Any],
           stages: dict[str, float]) -> dict[str, Any] | None:
    """A compile's guards: torch's count, the time build_guards took, and the sources with
    the most leaf guards (list entries collapsed: guard explosions, pytorch #128398)."""
    metrics = c.get("metrics") or {}
    count = metrics.get("guard_count") if isinstance(metrics, dict) else None
    per = reader.guard_sources(run_id, c["compile_id"])
    if count is None and not per and "guard_building" not in stages:
        return None
    grouped: dict[str, int] = {}
    for source, n in per.items():
        key = collapse_source(source)
        grouped[key] = grouped.get(key, 0) + n
    top = sorted(grouped.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_GUARD_SOURCES]
    build = stages.get("guard_building")
    return {"count": count, "build_s": _r(build) if build is not None else None,
            "top_sources": [{"source": s, "guards": n} for s, n in top]}


def _frame_total(regions: dict[str, dict[str, float]], cid: str) -> float:
    """The regions' seconds of every attempt of `cid`'s frame compile ('0/0', '0/0_1', ...)."""
    base = first_attempt(cid)
    return sum(sum(stages.values()) for c, stages in regions.items()
               if first_attempt(c) == base)


def per_compile(reader: Reader, run_id: int, compile_id: str | None = None
                ) -> dict[str, dict[str, Any]]:
    """compile id -> {total_s, stages, unaccounted_s, source, note?, guards}; one compile's
    alone when `compile_id` is given (the TUI's tab)."""
    regions = reader.compile_stages(run_id)
    out: dict[str, dict[str, Any]] = {}
    rows = reader.compiles(run_id) if compile_id is None else \
        [c for c in [reader.compile(run_id, compile_id)] if c]
    for c in rows:
        cid = c["compile_id"]
        st = c.get("stage_times") or {}
        if cid in regions:
            doc: dict[str, Any] | None = _from_regions(regions[cid])
        elif _frame_total(regions, cid):
            continue  # its frame compile's regions hold its time already (counted once)
        else:
            doc = _from_metrics(st)
        if doc is None:
            continue
        metrics_total = st.get("total")
        if doc["source"] == "chromium_events" and isinstance(metrics_total, (int, float)):
            # torch times a frame compile once, every attempt in it ('0/0' broke, '0/0_1'
            # restarted): its metrics are set against all the attempts' regions
            regions_total = _frame_total(regions, cid)
            gap = abs(regions_total - metrics_total)
            if gap > DISAGREE_S and gap > DISAGREE_FRACTION * max(metrics_total, 1e-9):
                doc["note"] = (f"torch's compilation_metrics time this compile at "
                               f"{metrics_total:.2f} s, its timed regions at "
                               f"{regions_total:.2f} s (a lazily compiled backward, or work "
                               "outside the regions, makes the difference)")
        g = guards(reader, run_id, c, regions.get(cid, {}))
        if g is not None:
            doc["guards"] = g
        out[cid] = doc
    return out


def run_wall_s(run: dict[str, Any]) -> float | None:
    if run.get("ended_at") and run.get("started_at") and run.get("source") == "run":
        return round(run["ended_at"] - run["started_at"], 3)
    return None


def for_run(reader: Reader, run_id: int,
            compiles: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The run's compile time: the compiles' totals and stages summed (compiles of one process
    do not overlap: Dynamo compiles one frame at a time), set against the run's wall time, and
    the user functions whose compiles (and Dynamo tracing) took longest."""
    compiles = per_compile(reader, run_id) if compiles is None else compiles
    rows = {c["compile_id"]: c for c in reader.compile_index(run_id)}
    funcs: dict[tuple, dict[str, Any]] = {}
    for cid, doc in compiles.items():
        c = rows.get(cid) or {}
        k = (c.get("co_name"), c.get("filename"), c.get("lineno"))
        f = funcs.setdefault(k, {"function": k[0], "filename": k[1], "lineno": k[2],
                                 "compiles": 0, "total_s": 0.0, "dynamo_tracing_s": 0.0})
        f["compiles"] += 1
        f["total_s"] += doc["total_s"]
        f["dynamo_tracing_s"] += doc["stages"].get("dynamo_tracing", 0.0)
    by_function = sorted(funcs.values(), key=lambda f: -f["total_s"])[:TOP_FUNCTIONS]
    for f in by_function:
        f["total_s"], f["dynamo_tracing_s"] = _r(f["total_s"]), _r(f["dynamo_tracing_s"])
    stages: dict[str, float] = {}
    for doc in compiles.values():
        for k, v in doc["stages"].items():
            stages[k] = stages.get(k, 0.0) + v
    total = _r(sum(d["total_s"] for d in compiles.values()))
    named = {k: _r(stages[k]) for k in sorted(stages, key=_stage_order)}
    out: dict[str, Any] = {"total_s": total, "stages": named,
                           "unaccounted_s": _r(total - sum(named.values())),
                           "wall_s": run_wall_s(reader.run(run_id)), "compiles": len(compiles),
                           "by_function": by_function}
    notes = []
    if out["wall_s"] is not None:
        out["outside_compile_s"] = _r(max(0.0, out["wall_s"] - total))
        if total > out["wall_s"]:
            notes.append(f"the compiles add up to {total:.2f} s, more than the run's "
                         f"{out['wall_s']:.2f} s wall time: compiles overlapped (threads), or "
                         "their times were taken on another clock than the run's")
    if reader.compile_event_count(run_id, "async_compile.wait"):
        notes.append("kernels were compiled in worker processes: kernel_compile is the time "
                     "the compile waited for them, not the workers' CPU time")
    if any(d.get("note") for d in compiles.values()):
        notes.append("torch's compilation_metrics disagree with the timed regions for some "
                     "compiles (see their notes)")
    if any(d["source"] == "metrics" for d in compiles.values()):
        notes.append("some compiles have no timed regions: their stages are "
                     "compilation_metrics' coarser timers")
    if notes:
        out["note"] = "; ".join(notes)
    return out
