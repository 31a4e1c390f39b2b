"""`compdiag minify`'s document (the --json contract of DESIGN.md), its progress bar and its
summary, both on stderr (stdout carries the JSON document)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def minify_document(result: Any, repro: Path) -> dict[str, Any]:
    from compdiag.minify.checker import checker_path
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
        "repro_check": str(checker_path(repro)),
        "repro_lines": _lines(repro),
        **({"first_differing": {"node": result.first_differing[0],
                                "why": result.first_differing[1]}}
           if result.first_differing else {}),
    }


def _lines(path: Path) -> int | None:
    try:
        return len(path.read_text().splitlines())
    except OSError:
        return None


class ProgressView:
    """A progress bar on a terminal's stderr while minify runs (nothing when stderr is not a
    terminal); `update` is minify's progress callback."""

    def __init__(self, console: Any) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        columns = [TextColumn("[bold]minify[/] {task.description:<16}"), BarColumn(),
                   TextColumn("{task.fields[nodes]} nodes, {task.fields[queries]} queries"),
                   TimeElapsedColumn()]
        self.bar = Progress(*columns, console=console, transient=True,
                            disable=not console.is_terminal)
        self.task = None

    def __enter__(self) -> "ProgressView":
        self.bar.__enter__()
        self.task = self.bar.add_task("reproduce", total=None, nodes="?", queries=0)
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(*exc)

    def update(self, name: str, nodes: int, initial: int, queries: int) -> None:
        self.bar.update(self.task, description=name, total=max(initial - 1, 1),
                        completed=initial - nodes, nodes=f"{nodes}/{initial}", queries=queries)


def print_minify(result: Any, repro: Path, console: Any) -> None:
    from compdiag.minify.checker import checker_path

    doc = result.problem.doc
    console.print(f"[bold]compdiag minify[/]: {doc['kind']} ({doc.get('stage')}) in graph "
                  f"{result.problem.compile_id} of run {result.problem.run_id}: "
                  f"{doc.get('exc_type')}: {(doc.get('message') or '').split(chr(10))[0][:160]}")
    mark = "[green]1-minimal[/]" if result.one_minimal else "[yellow]not verified 1-minimal[/]"
    console.print(f"  {result.initial_nodes} → {len(result.candidate.kept)} nodes, "
                  f"{len(result.built.input_names)} inputs, {len(result.candidate.outputs)} "
                  f"outputs; {result.queries} compile queries in {result.wall_s:.1f}s; {mark}")
    if result.first_differing:
        node, why = result.first_differing
        console.print(f"  first op whose compiled value differs from eager's: {node} ({why})"
                      if node else f"  first op whose compiled value differs: none found ({why})")
    console.print(f"  ops: {', '.join(result.ops)}")
    if result.built.config:
        console.print("  config: " + ", ".join(f"{k}={v!r}"
                                                for k, v in result.built.config.items()))
    console.print(f"  repro: {repro}  (python {repro} fails while the bug is present, exits 0 "
                  f"once fixed; {checker_path(repro).name}: the full check, exit 1/0/2/3)")
