"""`compdiag minify [RUN] [--graph ID] [-o repro.py] [--json]`: shrink a failing graph kept by
capture to a 1-minimal standalone repro."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from compdiag.commands._common import CLIError, add_store_arg, emit_json, store_path

HELP = "shrink a failing graph to a 1-minimal standalone repro"


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN", help="run id (default: the latest)")
    p.add_argument("--graph", metavar="ID", default=None,
                   help="which failing graph: its compile id (e.g. 0/0); default the last one")
    p.add_argument("-o", "--output", type=Path, default=Path("repro.py"), metavar="REPRO",
                   help="where to write the repro script (default ./repro.py)")
    p.add_argument("--max-queries", type=int, default=None, metavar="N",
                   help="stop reducing after N predicate evaluations")
    p.add_argument("--isolate", action="store_true",
                   help="run every query in a child process (automatic for crashes)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_minify)


def document(result: Any, repro: Path) -> dict[str, Any]:
    from compdiag.store.schema import SCHEMA_VERSION

    doc = result.problem.doc
    return {
        "schema_version": SCHEMA_VERSION,
        "run": result.problem.run_id,
        "graph": result.problem.compile_id,
        "failure": {"kind": doc["kind"], "stage": doc.get("stage"),
                    "exc_type": doc.get("exc_type"), "message": doc.get("message", "")[:500]},
        "input_nodes": len(result.built.input_names),
        "output_nodes": len(result.candidate.outputs),
        "nodes": len(result.candidate.kept),
        "initial_nodes": result.initial_nodes,
        "queries": result.queries,
        "checks": result.checks,
        "per_pass": result.per_pass,
        "one_minimal": result.one_minimal,
        "ops": result.ops,
        "config": result.built.config,
        "wall_s": round(result.wall_s, 2),
        "repro": str(repro),
    }


def cmd_minify(args: argparse.Namespace) -> int:
    from compdiag.minify.graph import MinifyError, load
    from compdiag.store.reader import Reader

    with Reader(store_path(args)) as reader:
        run_id = reader.resolve_run(args.run)
        try:
            problem = load(reader, run_id, args.graph)
        except MinifyError as exc:
            raise CLIError(str(exc)) from None
    if args.max_queries is not None and args.max_queries < 1:
        raise CLIError("--max-queries must be at least 1")
    try:
        result = _run(problem, args.max_queries, args.isolate)
    except MinifyError as exc:
        raise CLIError(str(exc)) from None
    from compdiag.minify.repro import write

    try:
        write(result, args.output)
    except OSError as exc:
        raise CLIError(f"cannot write {args.output} ({exc.strerror or exc})") from None
    if args.json:
        emit_json(document(result, args.output))
    else:
        _print(result, args.output)
    return 0


def _run(problem: Any, max_queries: int | None, isolate: bool = False) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from compdiag.minify.driver import minify

    console = Console(stderr=True)
    columns = [TextColumn("[bold]minify[/] {task.description:<16}"), BarColumn(),
               TextColumn("{task.fields[nodes]} nodes, {task.fields[queries]} queries"),
               TimeElapsedColumn()]
    with Progress(*columns, console=console, transient=True,
                  disable=not console.is_terminal) as bar:
        task = bar.add_task("reproduce", total=None, nodes="?", queries=0)

        def progress(name: str, nodes: int, initial: int, queries: int) -> None:
            bar.update(task, description=name, total=max(initial - 1, 1),
                       completed=initial - nodes, nodes=f"{nodes}/{initial}", queries=queries)

        return minify(problem, progress=progress, max_queries=max_queries, isolate=isolate)


def _print(result: Any, repro: Path) -> None:
    from rich.console import Console

    c = Console(stderr=True)
    doc = result.problem.doc
    c.print(f"[bold]compdiag minify[/]: {doc['kind']} ({doc.get('stage')}) in graph "
            f"{result.problem.compile_id} of run {result.problem.run_id}: "
            f"{doc.get('exc_type')}: {doc.get('message', '')[:160]}")
    mark = "[green]1-minimal[/]" if result.one_minimal else "[yellow]not verified 1-minimal[/]"
    c.print(f"  {result.initial_nodes} → {len(result.candidate.kept)} nodes, "
            f"{len(result.built.input_names)} inputs, {len(result.candidate.outputs)} outputs; "
            f"{result.queries} compile queries in {result.wall_s:.1f}s; {mark}")
    c.print(f"  ops: {', '.join(result.ops)}")
    if result.built.config:
        c.print("  config: " + ", ".join(f"{k}={v!r}" for k, v in result.built.config.items()))
    c.print(f"  repro: {repro}  (python {repro} exits 1 while the bug is present, 0 once fixed)")
    sys.stderr.flush()

