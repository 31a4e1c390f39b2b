"""`compdiag explain [RUN] [--json] [--limit N]`: the analysis is compdiag/analyses/explain.py,
the document and terminal view compdiag/views/explain.py."""

from __future__ import annotations

import argparse

from compdiag.commands._common import add_job_arg, CLIError, add_store_arg, emit_json, store_path

HELP = "ranked diagnoses with the user's line and the fix"


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
    from compdiag.views.explain import explain_document, print_explain

    if args.limit < 1:
        raise CLIError(f"--limit must be at least 1, not {args.limit}")
    with Reader(store_path(args)) as reader:
        if args.job is not None:  # every rank of a torchrun job, and where they diverged
            from compdiag.views.job import explain_job_document
            from compdiag.views.job import print_explain_job as print_explain

            doc = explain_job_document(reader, reader.resolve_job(args.job))
        else:
            doc = explain_document(reader, reader.resolve_run(args.run))
    if args.json:
        emit_json(doc)
    else:
        from rich.console import Console

        print_explain(doc, Console(), limit=args.limit)
    return 0
