"""`compdiag explain [RUN] [--json] [--limit N]`: the analysis is compdiag/analyses/explain.py,
the document and terminal view compdiag/views/explain.py."""

from __future__ import annotations

import argparse

from compdiag.commands._common import add_job_arg, CLIError, add_store_arg, emit_json, store_path

HELP = "ranked diagnoses with the user's line and the fix"
DESCRIPTION = ("The run's problems, most important first: graph breaks, recompiles, failures, "
               "accuracy mismatches, CUDA-graph skips, missed fusions and perf hints, each at "
               "your own line with torch's explanation and a concrete fix. Repeats of one "
               "problem are folded into one diagnosis (×N).")
EXAMPLES = (("compdiag explain", "the latest run's diagnoses"),
            ("compdiag explain 3 --json", "run 3's diagnoses as JSON (keys in docs/json.md)"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN", help="run id (default: the latest)")
    add_job_arg(p)
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument("--limit", type=int, default=10, metavar="N",
                   help="show at most N diagnoses in the terminal (default 10; --json has all)")
    p.set_defaults(func=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.views.explain import explain_document, excerpt_sources, print_explain

    if args.limit < 1:
        raise CLIError(f"--limit must be at least 1, not {args.limit}")
    with Reader(store_path(args)) as reader:
        if args.job is not None:  # every rank of a torchrun job, and where they diverged
            from compdiag.views.job import explain_job_document
            from compdiag.views.job import print_explain_job as print_explain

            job = reader.resolve_job(args.job)
            doc = explain_job_document(reader, job)
            run_ids = [r["id"] for r in reader.job_runs(job)]
        else:
            doc = explain_document(reader, reader.resolve_run(args.run))
            run_ids = [doc["run"]["id"]]
        sources = None if args.json else excerpt_sources(reader, run_ids, doc["diagnoses"])
    if args.json:
        emit_json(doc)
    else:
        from rich.console import Console

        print_explain(doc, Console(), limit=args.limit, sources=sources)
    return 0
