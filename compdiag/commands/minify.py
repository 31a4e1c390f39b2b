"""`compdiag minify [RUN] [--graph ID] [-o repro.py] [--json]`: shrink a failing graph kept by
capture to a 1-minimal standalone repro (compdiag/minify/; the view is compdiag/views/minify.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from compdiag.commands._common import (CLIError, add_store_arg, emit_json, output_file,
                                       store_path)

HELP = "shrink a failing graph to a 1-minimal standalone repro"
DESCRIPTION = ("Take the failing graph and inputs a run kept, and shrink it until removing any "
               "one node makes the failure go away; write a standalone repro.py (plain python, "
               "torch only) that exits 1 while the bug is present and 0 once it is fixed.")
EXAMPLES = (("compdiag minify", "the latest run's last failing graph, to ./repro.py"),
            ("compdiag minify 3 --graph 0/1 -o bug.py", "one graph of run 3, to bug.py"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN", help="run id (default: the latest)")
    p.add_argument("--graph", metavar="ID", default=None,
                   help="which failing graph: its compile id (e.g. 0/0, or 0/0@1 after a reset); "
                        "default the last one")
    p.add_argument("-o", "--output", type=Path, default=Path("repro.py"), metavar="REPRO",
                   help="where to write the plain repro (default ./repro.py); the full "
                        "checker goes beside it (repro_check.py)")
    p.add_argument("--max-queries", type=int, default=None, metavar="N",
                   help="stop reducing after N predicate evaluations")
    p.add_argument("--isolate", action="store_true",
                   help="run every query in a child process (automatic for crashes)")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_minify)


def cmd_minify(args: argparse.Namespace) -> int:
    from rich.console import Console

    from compdiag.minify.driver import minify_run
    from compdiag.minify.graph import MinifyError
    from compdiag.store.reader import Reader
    from compdiag.views.minify import ProgressView, minify_document, print_minify

    if args.max_queries is not None and args.max_queries < 1:
        raise CLIError("--max-queries must be at least 1")
    output_file(args.output, "-o")
    with Reader(store_path(args)) as reader:
        run_id = reader.resolve_run(args.run)
        excuse = _not_comparable(reader, run_id, _graph(args.graph))
        if excuse is not None:
            raise CLIError(excuse)
        try:
            with ProgressView(Console(stderr=True)) as view:
                result, _ = minify_run(reader, run_id, args.output, graph=_graph(args.graph),
                                       progress=view.update, max_queries=args.max_queries,
                                       isolate=args.isolate)
        except MinifyError as exc:
            raise CLIError(str(exc)) from None
        except OSError as exc:
            raise CLIError(f"cannot write {args.output} ({exc.strerror or exc})") from None
    if args.json:
        emit_json(minify_document(result, args.output))
    else:
        print_minify(result, args.output, Console(stderr=True))
        sys.stderr.flush()
    return 0


def _graph(text: str | None) -> str | None:
    """--graph as the store keys it: '0/0 (after reset 1)' as printed is '0/0@1'."""
    from compdiag.formats.compile_id import CompileId

    cid = CompileId.of(text)
    return str(cid) if cid is not None else text


def _not_comparable(reader: Any, run_id: int, graph: str | None) -> str | None:
    """Why the graph minify would shrink has nothing to shrink, when its only failure is an
    accuracy check that Inductor's own random numbers explain (the verdict `compdiag check`
    and explain give it): compiled again it differs or not by chance, so minify would report
    that it "does not reproduce". None otherwise."""
    from compdiag.analyses.accuracy import report
    from compdiag.minify.graph import chosen_graph, failure_graphs

    chosen = chosen_graph(failure_graphs(reader, run_id), graph)
    if chosen is None or chosen["kind"] != "accuracy":
        return None
    verdict = next((g for g in report(reader, run_id).graphs
                    if g.compile_id == chosen["compile_id"]), None)
    if verdict is None or not verdict.not_comparable:
        return None
    return (f"graph {chosen['compile_id']} of run {run_id} has nothing to minify: its values "
            f"are {verdict.not_comparable}")
