"""`compdiag runs [--store DB] [--json]`: the runs in the store."""

from __future__ import annotations

import argparse

from compdiag.commands._common import add_store_arg, emit_json, store_path

HELP = "list the runs in the store"
DESCRIPTION = "Every run in the store, newest last: its status, exit status, counts and argv."
EXAMPLES = (("compdiag runs", "the runs in ./.compdiag/compdiag.db"),
            ("compdiag runs --store ci.db --json", "as one JSON document (keys in docs/json.md)"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_runs)


def cmd_runs(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.views.show import print_runs, runs_document

    with Reader(store_path(args)) as reader:
        if args.json:
            emit_json(runs_document(reader))
        else:
            from rich.console import Console

            print_runs(reader, Console())
    return 0
