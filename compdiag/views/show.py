"""`compdiag runs` and `compdiag show`: the store's facts as the JSON contract of DESIGN.md,
or as rich tables for a terminal."""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from compdiag.analyses.compile_names import compile_names
from compdiag.analyses.compiled_autograd import ca_id
from compdiag.analyses.compiled_autograd import graphs as ca_graphs
from compdiag.analyses.cudagraph_coverage import coverage, summary_line
from compdiag.formats.compile_id import display
from compdiag.formats.user_code import is_user_file
from compdiag.formats.words import plural
from compdiag.store.reader import Reader
from compdiag.store.schema import SCHEMA_VERSION
from compdiag.views.compile_time import attach as attach_compile_time
from compdiag.views.compile_time import cache_lines, compile_time_lines
from compdiag.views.table import Col, fitted_table, short_path


def _graph_break(g: dict[str, Any]) -> dict[str, Any]:
    """A graph break as show lists it. Where Dynamo gave up on the whole frame, torch's
    reason is its wrapper ("Failed to handle graph break gracefully. Skipping the function
    ..."): the break's own type is the one under it, with the skip said after it."""
    inner = g.get("gb_type_inner")
    skipped = bool(g.get("frame_skipped"))
    reason = (f"{inner} (torch skipped the function and ran it in eager)"
              if inner else g["reason"])
    return {"compile_id": g["compile_id"], "reason": reason,
            "gb_type": inner or g["gb_type"], "gb_code": g["gb_code"],
            "frame_skipped": skipped, "user_frame": _user_frame(g), "hints": g["hints"]}


def _user_frame(row: dict[str, Any]) -> dict[str, Any]:
    """The break's line, or where torch's is inside a library or the stdlib (the frame Dynamo
    was in: contextlib's `enter_context`), the innermost user frame of its stack, the line
    explain points at (probes40a exitstack_frozen_backbone: show said contextlib.py:517)."""
    if is_user_file(row.get("filename")):
        return _frame(row)
    mine = [f for f in row.get("user_stack") or [] if isinstance(f, dict) and is_user_file(f.get("filename"))]
    return _frame(mine[-1]) if mine else _frame(row)


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
            "capture_self_s": (capture_cost(run) or {}).get("seconds"),
            "warnings": reader.warnings(run["id"]),
            **{k: run.get(k) for k in ("job", "rank", "world_size", "local_rank")}}


def runs_document(reader: Reader) -> dict[str, Any]:
    out = []
    for run in reader.runs():
        doc = run_summary(reader, run)
        doc["counts"] = reader.counts(run["id"])
        out.append(doc)
    return {"schema_version": SCHEMA_VERSION, "runs": out}


def _compiles(reader: Reader, run_id: int) -> list[dict[str, Any]]:
    """The run's compiles; each with `function`, the name the user knows it by, and
    `called_at` where that is not the code object's (analyses/compile_names.py)."""
    rows = reader.compiles(run_id)
    names = compile_names(reader, run_id, rows)
    return [{"compile_id": c["compile_id"], "frame": c["frame"], "attempt": c["attempt"],
             "generation": c.get("generation") or 0, "co_name": c["co_name"],
             "function": c["co_name"], "filename": c["filename"], "lineno": c["lineno"],
             "status": c["status"], "stage_times": c["stage_times"],
             **names.get(c["compile_id"], {})} for c in rows]


def show_document(reader: Reader, run_id: int) -> dict[str, Any]:
    run = reader.run(run_id)
    return attach_compile_time(reader, run_id, {
        "schema_version": SCHEMA_VERSION,
        "run": run_summary(reader, run),
        "compiles": _compiles(reader, run_id),
        "graph_breaks": [_graph_break(g) for g in reader.graph_breaks(run_id)],
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
        "ddp": ddp_section(reader, run_id),
        "compiled_autograd": ca_graphs(reader, run_id),
        "collectives": [{"compile_id": c["compile_id"], "node": c["node"], "target": c["target"],
                         "meta": c["meta"], "user_frame": _frame(c)}
                        for c in reader.collective_nodes(run_id)],
        "capture": capture_cost(run),
        "store_size": store_size(reader, run_id),
    })


def capture_cost(run: dict[str, Any]) -> dict[str, Any] | None:
    """Capture's own time in the program (capture/self_time.py), against the program's CPU
    time; None for an import or a run an older compdiag captured."""
    own, trace, cpu = (run.get(k) for k in ("capture_cpu_s", "capture_trace_s", "cpu_s"))
    if own is None or not cpu:
        return None
    total = own + (trace or 0.0)
    return {"seconds": round(total, 4), "share": round(total / cpu, 4),
            "compdiag_cpu_s": round(own, 4), "torch_trace_s": round(trace or 0.0, 4),
            "run_cpu_s": round(cpu, 3)}


def store_size(reader: Reader, run_id: int) -> dict[str, Any]:
    """The run's records in the store (blobs it names once, compressed) against their raw
    bytes (a TORCH_TRACE log's envelopes and payloads)."""
    size = reader.record_bytes(run_id)
    raw = size["raw"]
    return {"records_raw_bytes": raw, "records_stored_bytes": size["stored"],
            "ratio": round(size["stored"] / raw, 3) if raw else None}


def ddp_section(reader: Reader, run_id: int) -> dict[str, Any]:
    """DDP under torch.compile: each DDP(...) the program built, and DDPOptimizer's split of
    each compile it cut (its buckets, each piece's parameters, ops and the cut's user line)."""
    splits: dict[str, list[dict[str, Any]]] = {}
    for s in reader.ddp_splits(run_id):
        splits.setdefault(s["compile_id"], []).append(
            {"idx": s["idx"], "params": len(s["param_names"] or []),
             "param_bytes": s["param_bytes"], "ops": s["ops"], "cut_op": s["last_op"],
             "cut": {"filename": s["last_filename"], "lineno": s["last_lineno"],
                     "line": s["last_line"]}})
    buckets = {b["compile_id"]: b for b in reader.ddp_buckets(run_id) if b["buckets"]}
    return {"wraps": [{"via": w["via"] or "DDP", "module": w["module"],
                       "compiled": bool(w["compiled"]),
                       "bucket_cap_mb": w["bucket_cap_mb"], "params": w["params"],
                       "param_bytes": w["param_bytes"], "settings": w["settings"],
                       "user_frame": {"filename": w["filename"], "lineno": w["lineno"],
                                      "line": w["line"]}} for w in reader.ddp_wraps(run_id)],
            "splits": [{"compile_id": cid, "subgraphs": pieces,
                        "cap_bytes": (buckets.get(cid) or {}).get("cap_bytes"),
                        "bucket_bytes": (buckets.get(cid) or {}).get("sizes") or []}
                       for cid, pieces in splits.items()]}


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
    cols = (Col("run", justify="right"), Col("status"), Col("exit", justify="right"),
            Col("compiles", justify="right"), Col("breaks", 90, "right"),
            Col("recompiles", 80, "right"), Col("failures", 95, "right"),
            Col("kernels", 50, "right"), Col("source", 40), Col("argv", shrink=True, min_width=14))
    from compdiag.views.job_rows import job_rows

    rows = []
    for run in job_rows(reader, reader.runs()):
        if run.get("job_line"):  # a torchrun job, one row: per-rank values comma-separated
            ids, source, status, exits, *counts, argv = run["job_line"]
            rows.append([ids, status, exits.replace("None", "-"), *counts, source,
                         lambda width, text=argv: text])
            continue
        c = reader.counts(run["id"])
        rows.append([run["id"], run["status"], _dash(run["exit_code"]), c["compiles"],
                     c["graph_breaks"], c["recompiles"], c["failures"], c["kernels"],
                     run["source"], _argv_cell(list(run["argv"]))])
    if not rows:
        console.print(f"no runs in {reader.path} yet (compdiag run SCRIPT, or compdiag import "
                      "TRACE_LOG)", highlight=False)
        return
    console.print(f"[bold]runs in {reader.path}[/]", highlight=False)
    console.print(fitted_table(console.width, cols, rows))


def _where(filename: str | None, lineno: int | None):
    return lambda width: short_path(filename, lineno, width)


def _argv_cell(argv: list[str]):
    """argv in a width: the script's path shortened in its middle (its name kept), the rest
    as it is."""
    script = 1 if argv[:1] == ["-m"] else 0

    def cell(width: int) -> str:
        if len(argv) <= script:
            return " ".join(argv)
        rest = argv[script + 1:]
        shown = short_path(argv[script], None, max(1, width - len(" ".join(rest)) - 1))
        return " ".join([*argv[:script], shown, *rest])
    return cell


def _at(frame: dict[str, Any], width: int) -> str:
    """The user's line under a break or failure: '\n    at …/dir/file.py:12  the line'."""
    if not frame.get("filename"):
        return ""
    line = f"  {frame['line'].strip()}" if frame.get("line") else ""
    return (f"\n    at {escape(short_path(frame['filename'], frame.get('lineno'), width - 7))}"
            f"{escape(line)}")


def _dash(value: Any) -> str:
    """A value a person reads: '-' for none (never 'None')."""
    return "-" if value is None or value == "" else str(value)


def run_line(run: dict[str, Any]) -> str:
    """`run 3 prog.py args  done, exit 1 · torch 2.13.0 · cpu`, what is unknown left out."""
    facts = [run.get("status") or ""]
    if run.get("exit_code") is not None:
        facts[0] += f", exit {run['exit_code']}"
    facts += [f"torch {run['torch_version']}" if run.get("torch_version") else "",
              run.get("device") or ""]
    return (f"[bold]run {run['id']}[/] {escape(' '.join(run.get('argv') or []))}  "
            + " · ".join(f for f in facts if f))


def capture_line(cost: dict[str, Any] | None, size: dict[str, Any] | None) -> str:
    """`capture 0.42 s = 1.3% of the program's 31.9 s CPU (...) · records 0.21 MB stored
    of 0.43 MB raw (0.49x)`, what is unknown left out."""
    parts = []
    if cost:
        parts.append(f"capture {cost['seconds']:.2f} s = {100 * cost['share']:.1f}% of the "
                     f"program's {cost['run_cpu_s']:.1f} s CPU (compdiag "
                     f"{cost['compdiag_cpu_s']:.2f} s CPU, torch's trace records for it "
                     f"{cost['torch_trace_s']:.2f} s)")
    if size and size.get("records_raw_bytes"):
        parts.append(f"records {size['records_stored_bytes'] / 1e6:.2f} MB stored of "
                     f"{size['records_raw_bytes'] / 1e6:.2f} MB raw ({size['ratio']:.2f}x)")
    return " · ".join(parts)


_STATUS_STYLE = {"ok": "green", "graph_break": "yellow", "failed": "bold red",
                 "started": "dim", "empty": "dim", "interrupted": "bold red"}


def print_show(doc: dict[str, Any], console: Console) -> None:
    run = doc["run"]
    console.print(run_line(run), highlight=False)
    cost_line = capture_line(doc.get("capture"), doc.get("store_size"))
    if cost_line:
        console.print(f"  [dim]{cost_line}[/]", highlight=False)
    for w in run["warnings"]:
        console.print(f"  [yellow]warning:[/] {escape(w)}", highlight=False)
    compiles = doc["compiles"]
    cols = (Col("compile id"), Col("function", 60, flex=True, min_width=10),
            Col("where", shrink=True, min_width=20),
            Col("status", 90), Col("total s", 80, "right"))
    rows = []
    for c in compiles:
        total = (c.get("compile_time") or {}).get("total_s")  # its own time, counted once
        if total is None:
            total = c["stage_times"].get("total")
        ca = ca_id(c["compile_id"])
        name = f"compiled autograd #{ca}" if ca is not None else \
            c.get("function") or c["co_name"] or "-"
        at = c.get("called_at") or c
        rows.append((display(c["compile_id"]), name, _where(at["filename"], at["lineno"]),
                     Text(c["status"], style=_STATUS_STYLE.get(c["status"], "")),
                     f"{total:.2f}" if total is not None else "-"))
    if rows:
        reset = (", (after reset R) after the R-th torch._dynamo.reset()"
                 if any(c.get("generation") for c in compiles) else "")
        console.print(f"[bold]{plural(len(rows), 'compile')}[/] (compile id F/N: frame F's "
                      f"N-th compile, _A an attempt{reset}; docs/explain.md)", highlight=False)
        console.print(fitted_table(console.width, cols, rows))
    for g in doc["graph_breaks"]:
        code = f" {g['gb_code']}" if g.get("gb_code") else ""
        console.print(f"[yellow]graph break[/] {display(g['compile_id']) or '-'}{code} "
                      f"{escape(g['reason'])}{_at(g['user_frame'], console.width)}",
                      highlight=False)
    for r in doc["recompiles"]:
        console.print(f"[magenta]recompile[/] {display(r['compile_id']) or '-'} "
                      f"{escape(r['reason'])}",
                      highlight=False)
    for f in doc["failures"]:
        console.print(f"[bold red]failure[/] {display(f['compile_id']) or '-'} {f['stage']}: "
                      f"{f['exc_type'] or 'error'}: {escape(f['message'] or '')}"
                      f"{_at(f['user_frame'], console.width)}", highlight=False)
    if doc["kernels"]:
        cols = (Col("compile id"), Col("kernel", flex=True, min_width=16), Col("backend", 70),
                Col("fx nodes", 60, flex=True))
        rows = [(display(k["compile_id"]), k["name"], k["backend"],
                 ", ".join(k["fx_nodes"] or k["fused_ops"]) or "-") for k in doc["kernels"]]
        console.print(f"[bold]{plural(len(rows), 'kernel')}[/]", highlight=False)
        console.print(fitted_table(console.width, cols, rows))
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
    for line in [*compile_time_lines(doc.get("compile_time")),
                 *cache_lines(doc.get("caches") or [])]:
        console.print(line, markup=False, highlight=False)
    for g in doc.get("compiled_autograd") or []:
        console.print(f"compiled autograd #{g['ca_id']} "
                      f"({', '.join(g['compile_ids']) or 'not compiled'}): "
                      f"{plural(g['nodes'], 'autograd node')}, {plural(g['inputs'] or 0, 'input')}"
                      f"; made for: {escape(g['reason'])}", highlight=False)
    for c in doc.get("collectives") or []:
        console.print(f"collective {escape(str(c['compile_id']))} {escape(c['target'] or '?')} "
                      f"{escape(c['meta'] or '')}{_at(c['user_frame'], console.width)}",
                      highlight=False)
    for line in ddp_lines(doc.get("ddp") or {}):
        console.print(line, markup=False, highlight=False)
    not_fused = [f for f in doc["fusion"] if not f["fused"]]
    if doc["fusion"]:
        console.print(f"fusion: {len(doc['fusion']) - len(not_fused)} fused pairs, "
                      f"{len(not_fused)} 'cannot fuse' decisions")


def ddp_lines(ddp: dict[str, Any]) -> list[str]:
    """One line per DDP(...) and per DDPOptimizer split, then one per piece."""
    out = []
    for w in ddp.get("wraps") or []:
        uf = w["user_frame"]
        if w.get("via") == "torch.compile":
            out.append(f"torch.compile(DDP({w['module']})) at "
                       f"{os.path.basename(uf['filename'] or '?')}:{uf['lineno']}")
            continue
        inner = f"torch.compile({w['module']})" if w["compiled"] else w["module"]
        cap = f", bucket_cap_mb={w['bucket_cap_mb']:g}" if w.get("bucket_cap_mb") else ""
        out.append(f"DDP({inner}{cap}): {plural(w['params'] or 0, 'parameter')}, "
                   f"{(w['param_bytes'] or 0) / 2 ** 20:.3g} MiB at "
                   f"{os.path.basename(uf['filename'] or '?')}:{uf['lineno']}")
    for s in ddp.get("splits") or []:
        out.append(f"DDPOptimizer split [{s['compile_id']}] into "
                   f"{plural(len(s['subgraphs']), 'graph')}"
                   + (f" (cap {s['cap_bytes'] / 2 ** 20:.3g} MiB)" if s.get("cap_bytes") else ""))
        for g in s["subgraphs"]:
            cut = g["cut"]
            where = f"{os.path.basename(cut['filename'])}:{cut['lineno']}" \
                if cut.get("filename") else "?"
            out.append(f"  piece {g['idx'] + 1}: {plural(g['ops'], 'op')}, "
                       f"{plural(g['params'], 'parameter')} "
                       f"({g['param_bytes'] / 2 ** 20:.3g} MiB), ends at {where} "
                       f"({g['cut_op'] or '?'})")
    return out
