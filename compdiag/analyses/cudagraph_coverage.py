"""CUDA-graph coverage of one run: per compiled graph, whether it runs as CUDA graphs
(graphed), without them (skipped, with torch's reason) or in pieces (partitioned: the
partitions and the ops that split them), how many recordings cudagraph_trees made and for
which input sizes, and, when `compdiag perf` timed the graphs, the share of compiled time that
ran under CUDA graphs. `show`, `explain` (through the cudagraph kind), `perf` and the TUI read
it; None when nothing in the run asked for CUDA graphs."""

from __future__ import annotations

from typing import Any

from compdiag.formats.compile_id import sort_key
from compdiag.store.reader import Reader

# torch logs no memory figure per recording (cudagraph_trees' pool is shared by the
# recordings of one tree); the coverage says so rather than estimate one.
MEMORY_NOTE = ("torch does not log the memory each recording keeps; compare peak CUDA memory "
               "(compdiag perf) with and without the extra sizes")


def _graph(cid: str | None) -> dict[str, Any]:
    return {"compile_id": cid, "status": None, "reason": None, "partitions": None,
            "splits": [], "recordings": []}


def coverage(reader: Reader, run_id: int, timed: list[dict[str, Any]] | None = None
             ) -> dict[str, Any] | None:
    """The coverage document (`show --json` key `cudagraph_coverage`); `timed` is perf's
    per-graph list (compile_id, calls, compiled.median) when the run was timed."""
    graphs: dict[str | None, dict[str, Any]] = {}
    applied: set[str | None] = set()
    for row in reader.cudagraphs(run_id):
        g = graphs.setdefault(row.get("compile_id"), _graph(row.get("compile_id")))
        if row.get("applied"):
            applied.add(row.get("compile_id"))
        elif g["reason"] is None:
            g["reason"] = row.get("reason")
    for p in reader.cudagraph_partitions(run_id):
        g = graphs.setdefault(p.get("compile_id"), _graph(p.get("compile_id")))
        g["partitions"] = {"total": p.get("partitions"), "cudagraphable": p.get("cudagraphable"),
                           "non_cudagraphable": p.get("non_cudagraphable"),
                           "source": p.get("source")}
    for s in reader.cudagraph_splits(run_id):
        g = graphs.setdefault(s.get("compile_id"), _graph(s.get("compile_id")))
        g["splits"].append({"node": s.get("node"), "reason": s.get("reason"),
                            "fx": s.get("fx") or None})
    for r in reader.cudagraph_recordings(run_id):
        g = graphs.setdefault(r.get("compile_id"), _graph(r.get("compile_id")))
        g["recordings"].append({"graph_id": r.get("graph_id"), "function": r.get("function"),
                                "sizes": r.get("sizes") or [], "symints": r.get("symints") or []})
    # With graph_partition on, the scheduler logs its partitions in every mode; in the
    # default mode every partition is 'non-cudagraphable'. A graph belongs to the coverage
    # only when CUDA graphs were asked for: torch said applied or skipped, recorded it, or
    # found a partition it could graph.
    asked = {cid for cid, g in graphs.items()
             if cid in applied or g["reason"] is not None or g["recordings"]
             or ((g["partitions"] or {}).get("cudagraphable") or 0) > 0}
    graphs = {cid: g for cid, g in graphs.items() if cid in asked}
    if not graphs:
        return None
    for cid, g in graphs.items():
        g["status"] = status(g, cid in applied)
        g["recorded"] = len(g["recordings"])
        g["recorded_sizes"] = distinct_sizes(g["recordings"])
    rows = sorted(graphs.values(), key=lambda g: sort_key(g["compile_id"]))
    out = {
        "graphs": rows,
        "graphed": sum(g["status"] == "graphed" for g in rows),
        "partitioned": sum(g["status"] == "partitioned" for g in rows),
        "skipped": sum(g["status"] == "skipped" for g in rows),
        "recordings": sum(g["recorded"] for g in rows),
        "memory": MEMORY_NOTE,
        "share_under_cudagraphs": share_under(rows, timed),
    }
    return out


def status(g: dict[str, Any], applied: bool) -> str:
    """skipped: torch gave a reason and nothing was recorded; partitioned: some of the graph
    runs outside its CUDA-graphed partitions; graphed: recorded whole."""
    parts = g.get("partitions") or {}
    if g.get("reason") and not g["recordings"]:
        return "skipped"  # torch said so, and nothing was recorded
    if g["splits"] or (parts.get("non_cudagraphable") or 0) > 0 or (
            parts.get("cudagraphable") or 0) > 1:
        return "partitioned"
    if applied or g["recordings"] or parts.get("cudagraphable"):
        return "graphed"
    return "skipped" if g.get("reason") else "graphed"


def distinct_sizes(recordings: list[dict[str, Any]]) -> list[list[list[int]]]:
    """The distinct input-size sets the recordings were made for, in recording order."""
    seen: list[list[list[int]]] = []
    for r in recordings:
        if r["sizes"] not in seen:
            seen.append(r["sizes"])
    return seen


def share_under(rows: list[dict[str, Any]], timed: list[dict[str, Any]] | None
                ) -> float | None:
    """The part of the timed compiled time (weighted by calls) spent in graphs that ran as
    CUDA graphs, whole or partitioned; None without timings."""
    if not timed:
        return None
    under = {g["compile_id"] for g in rows if g["status"] in ("graphed", "partitioned")}
    total = inside = 0.0
    for t in timed:
        med = (t.get("compiled") or {}).get("median")
        if not med:
            continue
        w = max(1, int(t.get("calls") or 1)) * med
        total += w
        inside += w if t.get("compile_id") in under else 0.0
    return round(inside / total, 4) if total else None


def summary_line(cov: dict[str, Any] | None) -> str | None:
    """One line for the text views: 'CUDA graphs: 2 graphed, 1 partitioned, 0 skipped;
    3 recordings; 87% of compiled time under CUDA graphs'."""
    if not cov:
        return None
    line = (f"CUDA graphs: {cov['graphed']} graphed, {cov['partitioned']} partitioned, "
            f"{cov['skipped']} skipped; {cov['recordings']} recording"
            f"{'' if cov['recordings'] == 1 else 's'}")
    if cov.get("share_under_cudagraphs") is not None:
        line += f"; {cov['share_under_cudagraphs']:.0%} of compiled time under CUDA graphs"
    return line
