"""`compdiag diff RUN_A RUN_B [--json]`: the comparison lives in compdiag/analyses/diff.py, the
document and the terminal view in compdiag/views/diff.py."""

from __future__ import annotations

import argparse

from compdiag.commands._common import CLIError, add_store_arg, emit_json, store_path

HELP = ("what two runs did differently: compiles, breaks, recompiles, failures, kernels, CUDA "
        "graphs, autotuning winners, accuracy")


def cmd_diff(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.views.diff import diff_document, print_diff

    with Reader(store_path(args)) as reader:
        if args.job is not None:
            run_a, run_b = _rank_runs(reader, args.job, args.run_a, args.run_b)
        else:
            run_a, run_b = reader.resolve_run(args.run_a), reader.resolve_run(args.run_b)
        if run_a == run_b:
            raise CLIError(f"RUN_A and RUN_B are both run {run_a}: give two different runs")
        doc = diff_document(reader, run_a, run_b)
    if args.json:
        emit_json(doc)
    else:
        from rich.console import Console

        print_diff(doc, Console(highlight=False))
    return 0


def _rank_runs(reader, job: str, rank_a: str, rank_b: str) -> tuple[int, int]:
    """`diff --job J RANK_A RANK_B`: the runs of two ranks of a job."""
    job = reader.resolve_job(job)
    runs = {str(r["rank"]): r["id"] for r in reader.job_runs(job)}
    for rank in (rank_a, rank_b):
        if rank not in runs:
            raise CLIError(f"job {job} has no rank {rank} (its ranks: {', '.join(runs)})")
    return runs[rank_a], runs[rank_b]


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("--job", nargs="?", const="latest", default=None, metavar="ID",
                   help="RUN_A and RUN_B are ranks of this job (default: the latest job)")
    p.add_argument("run_a", metavar="RUN_A", help="run id, or 'latest'")
    p.add_argument("run_b", metavar="RUN_B", help="run id, or 'latest'")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_diff)

