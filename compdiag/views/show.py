"""`compdiag runs` and `compdiag show`: the store's facts as the JSON contract of DESIGN.md,
or as rich tables for a terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from compdiag.analyses.cudagraph_coverage import coverage, summary_line
from compdiag.store.reader import Reader
from compdiag.store.schema import SCHEMA_VERSION


def _frame(row: dict[str, Any]) -> dict[str, Any]:
    return {"filename": row.get("filename"), "lineno": row.get("lineno"), "line": row.get("line")}


def run_summary(reader: Reader, run: dict[str, Any]) -> dict[str, Any]:
    wall = None
    if run.get("ended_at") and run.get("started_at") and run["source"] == "run":
        wall = round(run["ended_at"] - run["started_at"], 3)
    return {"id": run["id"], "source": run["source"], "argv": run["argv"],
            "exit_code": run["exit_code"], "status": run["status"],
            "torch_version": run["torch_version"], "device": run["device"],
            "started_at": run["started_at"], "wall_s": wall,
            "warnings": reader.warnings(run["id"]),
            **{k: run.get(k) for k in ("job", "rank", "world_size", "local_rank")}}


def runs_document(reader: Reader) -> dict[str, Any]:
    out = []
    for run in reader.runs():
        doc = run_summary(reader, run)
        doc["counts"] = reader.counts(run["id"])
        out.append(doc)
    return {"schema_version": SCHEMA_VERSION, "runs": out}


def show_document(reader: Reader, run_id: int) -> dict[str, Any]:
    run = reader.run(run_id)
    return {
        "schema_version": SCHEMA_VERSION,
        "run": run_summary(reader, run),
        "compiles": [{"compile_id": c["compile_id"], "frame": c["frame"],
                      "attempt": c["attempt"], "co_name": c["co_name"],
                      "filename": c["filename"], "lineno": c["lineno"], "status": c["status"],
                      "stage_times": c["stage_times"]} for c in reader.compiles(run_id)],
        "graph_breaks": [{"compile_id": g["compile_id"], "reason": g["reason"],
                          "gb_type": g["gb_type"], "gb_code": g["gb_code"],
                          "user_frame": _frame(g), "hints": g["hints"]}
                         for g in reader.graph_breaks(run_id)],
        "recompiles": [{"compile_id": r["compile_id"], "reason": r["reason"],
                        "guard": r["guard"]} for r in reader.recompiles(run_id)],
        "failures": [{"compile_id": f["compile_id"], "stage": f["stage"],
                      "exc_type": f["exc_type"], "message": f["message"],
                      "user_frame": _frame(f)} for f in reader.failures(run_id)],
        "kernels": [{"compile_id": k["compile_id"], "name": k["name"], "backend": k["backend"],
                     "source": k["source"], "fx_nodes": k["fx_nodes"],
                     "fused_ops": k["fused_ops"], "user_lines": k["user_lines"]}
                    for k in reader.kernels(run_id)],
        "fusion": [{"compile_id": f["compile_id"], "node1": f["node1"], "node2": f["node2"],
                    "fused": f["fused"], "reason": f["reason"]} for f in reader.fusion(run_id)],
        "cudagraphs": [{"compile_id": c["compile_id"], "applied": c["applied"],
                        "reason": c["reason"]} for c in reader.cudagraphs(run_id)],
        "cudagraph_coverage": coverage(reader, run_id, _timed(reader, run_id)),
        "autotune": [{"compile_id": a["compile_id"], "op": a["op"], "choice": a["choice"]}
                     for a in reader.autotune(run_id)],
        "accuracy": [{"compile_id": a["compile_id"], "output": a["output"],
                      "max_abs": a["max_abs"], "max_rel": a["max_rel"], "ok": a["ok"],
                      "detail": a["detail"]}
                     for a in reader.accuracy(run_id)],
    }


def _timed(reader: Reader, run_id: int) -> list[dict[str, Any]]:
    """The run's perf timings (when `compdiag perf` made it) as the coverage's share needs."""
    from compdiag.analyses.perf_stats import median

    out = []
    for p in reader.perf_graphs(run_id):
        samples = p.get("compiled_s") or []
        if samples:
            out.append({"compile_id": p["compile_id"], "calls": p.get("calls"),
                        "compiled": {"median": median(samples)}})
    return out


def print_runs(reader: Reader, console: Console) -> None:
    table = Table(title=f"runs in {reader.path}")
    for col in ("run", "source", "status", "exit", "compiles", "breaks", "recompiles",
                "failures", "kernels", "argv"):
        table.add_column(col)
    from compdiag.views.job import job_rows

    for run in job_rows(reader, reader.runs()):
        if run.get("job_line"):
            table.add_row(*run["job_line"])
            continue
        c = reader.counts(run["id"])
        table.add_row(str(run["id"]), run["source"], run["status"], str(run["exit_code"]),
                      str(c["compiles"]), str(c["graph_breaks"]), str(c["recompiles"]),
                      str(c["failures"]), str(c["kernels"]), " ".join(run["argv"])[:60])
    console.print(table)


_STATUS_STYLE = {"ok": "green", "graph_break": "yellow", "failed": "bold red",
                 "started": "dim", "empty": "dim"}


def print_show(doc: dict[str, Any], console: Console) -> None:
    run = doc["run"]
    console.print(f"[bold]run {run['id']}[/] {' '.join(run['argv'])}  status={run['status']} "
                  f"exit={run['exit_code']} torch={run['torch_version']} device={run['device']}")
    for w in run["warnings"]:
        console.print(f"  [yellow]warning:[/] {w}")
    t = Table(title="compiles")
    for col in ("compile id", "function", "where", "status", "total s"):
        t.add_column(col)
    for c in doc["compiles"]:
        style = _STATUS_STYLE.get(c["status"], "")
        total = c["stage_times"].get("total")
        t.add_row(c["compile_id"], c["co_name"] or "", f"{c['filename']}:{c['lineno']}",
                  f"[{style}]{c['status']}[/]", f"{total:.2f}" if total is not None else "")
    console.print(t)
    for g in doc["graph_breaks"]:
        uf = g["user_frame"]
        console.print(f"[yellow]graph break[/] [{g['compile_id']}] {g['gb_code'] or ''} "
                      f"{g['reason']}\n    at {uf['filename']}:{uf['lineno']}  {uf['line'] or ''}")
    for r in doc["recompiles"]:
        console.print(f"[magenta]recompile[/] [{r['compile_id']}] {r['reason']}")
    for f in doc["failures"]:
        uf = f["user_frame"]
        console.print(f"[bold red]failure[/] [{f['compile_id']}] {f['stage']}: {f['exc_type']}: "
                      f"{f['message']}\n    at {uf['filename']}:{uf['lineno']}")
    if doc["kernels"]:
        k = Table(title="kernels")
        for col in ("compile id", "kernel", "backend", "fx nodes"):
            k.add_column(col)
        for row in doc["kernels"]:
            k.add_row(row["compile_id"], row["name"], row["backend"],
                      ", ".join(row["fx_nodes"] or row["fused_ops"]))
        console.print(k)
    for c in doc["cudagraphs"]:
        word = "[green]applied[/]" if c["applied"] else f"[red]skipped[/]: {c['reason']}"
        console.print(f"cudagraphs [{c['compile_id']}] {word}")
    cov = doc.get("cudagraph_coverage")
    if cov:
        console.print(summary_line(cov))
        for g in cov["graphs"]:
            parts = g["partitions"] or {}
            sizes = ", ".join(" ".join(str(s) for s in r) for r in g["recorded_sizes"])
            more = (f", partitions {parts.get('cudagraphable')} graphed / "
                    f"{parts.get('non_cudagraphable')} left out" if g["status"] == "partitioned"
                    else "")
            console.print(f"  [{g['compile_id']}] {g['status']}{more}; recorded "
                          f"{g['recorded']}x" + (f" for {sizes}" if sizes else ""))
    not_fused = [f for f in doc["fusion"] if not f["fused"]]
    if doc["fusion"]:
        console.print(f"fusion: {len(doc['fusion']) - len(not_fused)} fused pairs, "
                      f"{len(not_fused)} 'cannot fuse' decisions")
