"""The `runs` table's rows with each torchrun job folded into one: kept apart from views/job.py,
which renders a job through show's and explain's views, so that show can list jobs without
importing back up into it."""

from __future__ import annotations

from typing import Any

from compdiag.store.reader import Reader


def job_rows(reader: Reader, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The store's runs with each job folded into one row (`job_line`: the `runs` table's
    cells), where the job's first run was."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for run in runs:
        job = run.get("job")
        if job is None:
            out.append(run)
            continue
        if job in seen:
            continue
        seen.add(job)
        ranks = reader.job_runs(job)
        if not ranks:  # a launcher whose workers never started
            out.append(run)
            continue
        counts = [reader.counts(r["id"]) for r in ranks]
        statuses = list(dict.fromkeys(r["status"] for r in ranks))

        def per(key: str) -> str:
            return ",".join(str(c[key]) for c in counts)

        argv = " ".join(ranks[0]["argv"] or [])
        out.append({"job_line": (
            ",".join(str(r["id"]) for r in ranks), "job", "/".join(statuses),
            ",".join(str(r["exit_code"]) for r in ranks), per("compiles"),
            per("graph_breaks"), per("recompiles"), per("failures"), per("kernels"),
            f"job {job}: ranks {','.join(str(r['rank']) for r in ranks)} {argv}"[:80])})
    return out
