"""`compdiag report --job`: one archive for a torchrun job, every rank in it.

    compdiag-report-JOB/report.md     the job's top diagnoses (each with the ranks it concerns),
                                      a table of the ranks, what the archive holds
    compdiag-report-JOB/report.json   `compdiag explain --job --json`
    compdiag-report-JOB/env.json      the machine, and each rank's torch and device
    compdiag-report-JOB/ranks/dedicated_log_torch_trace_rank_N_runR.log
                                      each rank's records as a TORCH_TRACE log: the folder
                                      `compdiag import`s back into one job (tlparse reads each)

A maintainer reading a multi-rank issue needs every rank side by side, which one run's report
cannot give (probes26: no `report --job`). No repro is minified here (it is one rank's graph):
report.md names the `compdiag report` command of the rank the top diagnosis concerns. The
archive keeps run's bound, shared between the ranks' logs (bundle._trace drops the biggest
payloads first)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from compdiag.formats.command_line import command_line, is_default_store
from compdiag.importer.trace_writer import glog_prefix, trace_entries
from compdiag.report import env as envinfo
from compdiag.report.bundle import (_MARGIN, BOUND, Bundle, Member, _compressed, _json, _trace,
                                    home_relative, write_bounded)
from compdiag.store.reader import Reader
from compdiag.views.job import explain_job_document
from compdiag.views.report import job_report_markdown


def default_name(job: str) -> str:
    return f"compdiag-report-{job}.zip"


def build_job(store: Path, job: str, out: Path | None, *, bound: int = BOUND,
              home: str | None = None,
              progress: Callable[[str], None] = lambda s: None) -> Bundle:
    """Write the report archive of the torchrun job `job` (an id, a run of it, or "latest")
    to `out` (default ./compdiag-report-JOB.zip)."""
    rel = home_relative(os.path.expanduser("~") if home is None else home)
    with Reader(store) as reader:
        job = reader.resolve_job(job)
        out = out if out is not None else Path(default_name(job))
        doc = explain_job_document(reader, job)
        runs = reader.job_runs(job)
        progress("collecting the environment (torch.utils.collect_env)")
        env = {"machine": envinfo.machine(),
               "ranks": {str(r["rank"]): {"run": r["id"], "torch_version": r.get("torch_version"),
                                          "device": r.get("device")} for r in runs}}
        logs = [(r, list(trace_entries(reader, r["id"]))) for r in runs]
        launcher = reader.job_launcher(job) or {}
    members = [Member("report.json", _json(doc, rel), "`compdiag explain --job --json`"),
               Member("env.json", _json(env, rel), "the machine (torch's collect_env), each "
                      "rank's torch version and device")]
    left_out: list[str] = []
    share = (bound - _MARGIN - _compressed(members)) // max(1, len(logs))
    for r, entries in logs:
        name = f"ranks/dedicated_log_torch_trace_rank_{r['rank']}_run{r['id']}.log"
        trace, dropped = _trace(entries, glog_prefix(r.get("started_at") or 0.0, r.get("pid")),
                                rel, set(), share)
        if dropped:
            left_out.append(f"rank {r['rank']}: {dropped}")
        members.append(Member(name, trace, f"rank {r['rank']}'s {len(entries)} records (run "
                              f"{r['id']}) as a TORCH_TRACE log"))
    top = next(iter(doc["diagnoses"]), None)
    rank = (top.get("ranks") or [None])[0] if top else None
    run_of = {r["rank"]: r["id"] for r in runs}
    repro = (command_line("report", run_of[rank],
                          store=None if is_default_store(str(store)) else str(store))
             if rank in run_of else None)
    listing = [(m.name, len(m.data), m.what) for m in members]
    launched = " ".join(["python", *launcher["argv"]]) if launcher.get("argv") else ""
    md = job_report_markdown(doc, env, repro=repro, listing=listing, left_out=left_out,
                             bound=bound, launched=launched)
    members.insert(0, Member("report.md", rel(md).encode(), "this summary"))
    size = write_bounded(out, members, bound)
    return Bundle(out, size, runs[0]["id"] if runs else 0, members, left_out)
