"""`compdiag diff RUN_A RUN_B [--json]`: the comparison lives in compdiag/analyses/diff.py, the
terminal view here. `-` is only in RUN_A, `+` only in
RUN_B, `~` in both but a different number of times (or, for autotuning, another winner)."""

from __future__ import annotations

import argparse
from typing import Any

from compdiag.commands._common import CLIError, add_store_arg, emit_json, store_path
from compdiag.store.schema import SCHEMA_VERSION

HELP = ("what two runs did differently: compiles, breaks, recompiles, failures, kernels, CUDA "
        "graphs, autotuning winners, accuracy")


def diff_document(reader: Any, run_a: int, run_b: int) -> dict[str, Any]:
    from compdiag.analyses.diff import diff_runs

    return {"schema_version": SCHEMA_VERSION, **diff_runs(reader, run_a, run_b)}


def cmd_diff(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader

    with Reader(store_path(args)) as reader:
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


def print_diff(doc: dict[str, Any], console: Any) -> None:
    from rich.markup import escape

    from compdiag.analyses.diff import STYLES, describe

    for kind, text in describe(doc):
        style = STYLES.get(kind, "")
        console.print(f"[{style}]{escape(text)}[/]" if style else escape(text))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run_a", metavar="RUN_A", help="run id, or 'latest'")
    p.add_argument("run_b", metavar="RUN_B", help="run id, or 'latest'")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_diff)

