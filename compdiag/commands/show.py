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

    if args.job is not None:
        return _cmd_job(args)
    with Reader(store_path(args)) as reader:
        doc = show_document(reader, reader.resolve_run(args.run))
    if args.json:
        emit_json(doc)
    else:
        from rich.console import Console

        print_show(doc, Console())
    return 0


def _cmd_job(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.views.job import show_job_document, print_show_job

    with Reader(store_path(args)) as reader:
        doc = show_job_document(reader, reader.resolve_job(args.job))
    if args.json:
        emit_json(doc)
    else:
        from rich.console import Console

        print_show_job(doc, Console())
    return 0
