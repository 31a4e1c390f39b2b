"""A run's compile timeline as Chrome trace JSON (`traceEvents`), which ui.perfetto.dev and
chrome://tracing open: one track (tid) per compile id, torch's timed regions on it as complete
events nested by time (stages, cache-key work, kernel compiles, autotuning), its cache lookups
as instants. Built from the stored regions (`compile_events`) and compilation_metrics, never
from the log."""

from __future__ import annotations

from typing import Any

from compdiag.store.reader import Reader, compile_id_key

PID = 1


def _label(c: dict[str, Any] | None, cid: str) -> str:
    name = (c or {}).get("co_name")
    return f"compile {cid}" + (f" {name}" if name else "")


def perfetto_trace(reader: Reader, run_id: int) -> dict[str, Any]:
    """{'traceEvents': [...], 'displayTimeUnit': 'ms', 'otherData': {...}} for one run."""
    compiles = {c["compile_id"]: c for c in reader.compiles(run_id)}
    events = reader.compile_events(run_id)
    have = {e["compile_id"] for e in events}
    # Compiles no region was kept for (an older torch, a partial log): one span from metrics.
    spans = []
    for cid, c in compiles.items():
        m = c.get("metrics") if isinstance(c.get("metrics"), dict) else {}
        start, dur = m.get("start_time_us"), m.get("duration_us")
        if cid not in have and isinstance(start, (int, float)) and isinstance(dur, (int, float)):
            spans.append({"compile_id": cid, "name": "compile (compilation_metrics)",
                          "cat": "metrics", "start_us": float(start), "dur_us": float(dur),
                          "depth": 0, "stage": None, "args": {}})
    events = events + spans
    cids = sorted({e["compile_id"] for e in events}, key=compile_id_key)
    tid = {cid: i + 1 for i, cid in enumerate(cids)}
    t0 = min((e["start_us"] for e in events), default=0.0)
    run = reader.run(run_id)
    out: list[dict[str, Any]] = [
        {"ph": "M", "pid": PID, "tid": 0, "name": "process_name",
         "args": {"name": f"compdiag run {run_id}: {' '.join(run.get('argv') or [])[:80]}"}}]
    for cid in cids:
        out.append({"ph": "M", "pid": PID, "tid": tid[cid], "name": "thread_name",
                    "args": {"name": _label(compiles.get(cid), cid)}})
        out.append({"ph": "M", "pid": PID, "tid": tid[cid], "name": "thread_sort_index",
                    "args": {"sort_index": tid[cid]}})
    body = []
    for e in events:
        args = dict(e["args"]) if isinstance(e.get("args"), dict) else {}
        args["compile_id"] = e["compile_id"]
        if e.get("stage"):
            args["stage"] = e["stage"]
        ev = {"name": e["name"], "cat": e.get("stage") or e.get("cat") or "compile",
              "pid": PID, "tid": tid[e["compile_id"]], "ts": round(e["start_us"] - t0, 3),
              "args": args}
        if e.get("dur_us") is None:
            ev.update(ph="i", s="t")
        else:
            ev.update(ph="X", dur=round(e["dur_us"], 3))
        body.append(ev)
    # Outer regions first at equal start, so viewers nest them the way torch timed them.
    body.sort(key=lambda ev: (ev["tid"], ev["ts"], -ev.get("dur", 0.0)))
    return {"traceEvents": out + body, "displayTimeUnit": "ms",
            "otherData": {"run_id": run_id, "torch_version": run.get("torch_version"),
                          "clock": "torch's timestamps, microseconds from the first event"}}
