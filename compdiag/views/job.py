"""A torchrun job (the runs of its ranks) as `compdiag runs` lists it, and as `show --job` and
`explain --job` render it: the JSON documents and the terminal views, a column per rank."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.job_context import compile_seconds
from compdiag.store.reader import Reader
from compdiag.store.schema import SCHEMA_VERSION


def job_summary(reader: Reader, job: str) -> dict[str, Any]:
    """{id, world_size, launcher, ranks: [{rank, run, local_rank, status, exit_code, counts,
    compile_s, break_lines}]}: the job as every job document carries it."""
    runs = reader.job_runs(job)
    launcher = next((j["launcher"] for j in reader.jobs() if j["job"] == job), None)
    ranks = [{"rank": r["rank"], "run": r["id"], "local_rank": r["local_rank"],
              "status": r["status"], "exit_code": r["exit_code"],
              "counts": reader.counts(r["id"]),
              "compile_s": compile_seconds(reader.compile_index(r["id"])),
              "break_lines": break_lines(reader, r["id"])} for r in runs]
    files = {at.rsplit(":", 1)[0] for r in ranks for at in r["break_lines"]}
    if len(files) == 1:  # one file (the script): its line numbers say it
        for r in ranks:
            r["break_lines"] = [f"line {at.rsplit(':', 1)[1]}" for at in r["break_lines"]]
    return {"id": job, "world_size": max((r["world_size"] or 0 for r in runs), default=0),
            "launcher": launcher, "ranks": ranks}


def break_lines(reader: Reader, run_id: int) -> list[str]:
    """Where a rank's graph breaks are, `file:line` once each in line order: equal counts on
    two ranks are not the same breaks (probes43d pipeline_stage_send_recv_break: rank 0 broke
    at its `dist.send`, rank 1 at its `dist.recv`, and the header said "compiled alike")."""
    import json
    import os

    from compdiag.formats.user_code import is_user_file

    seen = set()
    for g in reader.graph_breaks(run_id):
        at = (g.get("filename"), g.get("lineno"))
        stack = g.get("user_stack") or []
        try:  # the innermost user frame of its stack: a break in torch's code is at its call
            stack = json.loads(stack) if isinstance(stack, str) else stack
        except ValueError:
            stack = []
        mine = [f for f in stack if isinstance(f, dict) and is_user_file(f.get("filename"))] \
            if isinstance(stack, list) else []
        if not is_user_file(at[0]) and mine:
            at = (mine[-1].get("filename"), mine[-1].get("lineno"))
        seen.add((os.path.basename(str(at[0] or "?")), at[1] or 0))
    return [f"{f}:{n}" for f, n in sorted(seen, key=lambda x: (x[0], x[1]))]


def show_job_document(reader: Reader, job: str) -> dict[str, Any]:
    from compdiag.views.show import show_document

    return {"schema_version": SCHEMA_VERSION, "job": job_summary(reader, job),
            "ranks": [show_document(reader, r["id"]) for r in reader.job_runs(job)]}


def explain_job_document(reader: Reader, job: str) -> dict[str, Any]:
    from compdiag.analyses.explain import explain_job, public

    diagnoses = []
    faults: list[Any] = []
    for d, ranks in explain_job(reader, job, faults):
        doc = public(d)
        doc["ranks"] = list(ranks)
        diagnoses.append(doc)
    return {"schema_version": SCHEMA_VERSION, "job": job_summary(reader, job),
            "diagnoses": diagnoses,
            "faults": [f.to_json() for f in dict.fromkeys(faults)]}


# -- terminal ---------------------------------------------------------------------------------
ROWS = (("status", lambda r: r["status"]), ("exit", lambda r: str(r["exit_code"])),
        ("compiles", lambda r: str(r["counts"]["compiles"])),
        ("graph breaks", lambda r: str(r["counts"]["graph_breaks"])),
        ("graph breaks at", lambda r: ", ".join(r.get("break_lines") or []) or "-"),
        ("recompiles", lambda r: str(r["counts"]["recompiles"])),
        ("failures", lambda r: str(r["counts"]["failures"])),
        ("kernels", lambda r: str(r["counts"]["kernels"])),
        ("compile s", lambda r: f"{r['compile_s']:.1f}"))


def differing_rows(job: dict[str, Any]) -> list[str]:
    """The rank table's rows whose ranks differ (compile time aside, which always does): what
    a header must not call alike (probes29d: one rank's failed compile under "the 2 ranks
    compiled alike")."""
    return [name for name, cell in ROWS
            if name != "compile s" and len({cell(r) for r in job["ranks"]}) > 1]


def alike_line(job: dict[str, Any]) -> str:
    """The header of a job with no divergence diagnosis: alike only where every row is."""
    n = len(job["ranks"])
    differ = differing_rows(job)
    if not differ:
        return (f"the {n} ranks compiled alike — same compiles, graph breaks, guards, "
                "collectives and cache results.")
    # a rank killed before its compiles were done (SIGTERM after another rank failed) has
    # nothing to compare them with: "no divergence found" would claim a comparison
    # (probes45d ddp_fullgraph_truncate_warn_rank1)
    cut = [str(r["rank"]) for r in job["ranks"] if r.get("status") == "killed"]
    found = f"no divergence found between the {n} ranks' compiles"
    if cut:
        found = (f"rank{'s' if len(cut) > 1 else ''} {', '.join(cut)} killed while the job "
                 "ran, so what it would have compiled next is unknown: no divergence found "
                 f"between what the {n} ranks did compile")
    return f"{found}, but they differ in {', '.join(differ)} (the bold rows)."


def rank_table(job: dict[str, Any], title: str | None = None):
    """The job's ranks side by side (a column per rank); a row whose ranks differ is bold."""
    from rich.table import Table

    t = Table(title=title or f"job {job['id']}")
    t.add_column("")
    for r in job["ranks"]:
        t.add_column(f"rank {r['rank']} (run {r['run']})")
    for name, cell in ROWS:
        values = [cell(r) for r in job["ranks"]]
        style = "bold yellow" if len(set(values)) > 1 and name != "compile s" else ""
        t.add_row(name, *values, style=style)
    return t


def print_show_job(doc: dict[str, Any], console: Any) -> None:
    console.print(rank_table(doc["job"]))
    for rank_doc in doc["ranks"]:
        for g in rank_doc["graph_breaks"]:
            uf = g["user_frame"]
            console.print(f"[yellow]rank {rank_doc['run']['rank']} graph break[/] "
                          f"[{g['compile_id']}] {g['reason']}\n    at {uf['filename']}:"
                          f"{uf['lineno']}  {uf['line'] or ''}")


def print_explain_job(doc: dict[str, Any], console: Any, limit: int = 10,
                      sources: dict[str, list[str]] | None = None) -> None:
    from compdiag.views.explain import print_faults, print_info, print_panels

    job = doc["job"]
    console.print(rank_table(job))
    print_faults(doc, console)
    diverged = [d for d in doc["diagnoses"] if d["kind"] == "divergence"]
    folded = any(c.get("kind") == "divergence" for d in doc["diagnoses"]
                 for c in d.get("consequences") or ())
    if folded and not diverged:  # a divergence under the failure it led to (explain_job)
        console.print(f"[yellow]job {job['id']}: the ranks diverged, and the failure that "
                      "divergence led to is below, with it[/]")
    elif not diverged:
        line = alike_line(job)
        console.print(f"[{'yellow' if differing_rows(job) else 'green'}]job {job['id']}: "
                      f"{line}[/]")
    for d in diverged:
        seqs = (d.get("details") or {}).get("sequences")
        if seqs:
            console.print(collective_table(seqs, (d["details"] or {}).get("position")))
    # what torch does on purpose is information there as in a run's view (probes41e: the
    # job view numbered "compile cache, nothing is wrong" like a problem)
    print_panels([d for d in doc["diagnoses"] if d.get("severity") != "info"], console, limit,
                 sources)
    print_info([d for d in doc["diagnoses"] if d.get("severity") == "info"], console, limit)


def collective_table(seqs: dict[str, list[str]], position: int | None) -> Any:
    """Each rank's collectives in compile order, side by side; the row where they first part
    in bold (a rank whose sequence ended there shows '-')."""
    from rich.table import Table

    t = Table(title="collectives, in compile order", title_style="bold")
    t.add_column("#", justify="right")
    ranks = sorted(seqs, key=int)
    for r in ranks:
        t.add_column(f"rank {r}")
    for i in range(max((len(v) for v in seqs.values()), default=0)):
        t.add_row(str(i + 1), *(seqs[r][i] if i < len(seqs[r]) else "-" for r in ranks),
                  style="bold yellow" if position == i + 1 else "")
    return t
