"""`compdiag show [RUN] [--store DB] [--json]`: one run's stages, graphs, breaks, recompiles,
kernels, CUDA graphs and failures."""

from __future__ import annotations

import argparse

from compdiag.commands._common import add_job_arg, add_store_arg, emit_json, store_path

HELP = "stages, graphs, breaks, recompiles, kernels of a run"


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN")
    add_job_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)


def cmd_show(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.views.show import print_show, show_document

    with Reader(store_path(args)) as reader:
        if args.job is not None:  # every rank of a torchrun job
            from compdiag.views.job import print_show_job as print_show
            from compdiag.views.job import show_job_document

            doc = show_job_document(reader, reader.resolve_job(args.job))
        else:
            doc = show_document(reader, reader.resolve_run(args.run))
    if args.json:
        emit_json(doc)
    else:
        from rich.console import Console

        print_show(doc, Console())
    return 0
