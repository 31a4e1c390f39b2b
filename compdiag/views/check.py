"""`compdiag check`'s document (--json) and its verdict lines on stderr, from an accuracy report
(compdiag/analyses/accuracy.py)."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from compdiag.analyses.accuracy import EXIT_SCRIPT_FAILED, AccuracyReport
from compdiag.formats.words import plural


def check_document(rep: AccuracyReport) -> dict[str, Any]:
    from compdiag.store.schema import SCHEMA_VERSION

    return {"schema_version": SCHEMA_VERSION, "run": rep.run_id, "exit": rep.verdict,
            "graphs": [{"compile_id": g.compile_id, "ok": g.ok, "message": g.message,
                        "outputs": g.outputs} for g in rep.graphs],
            "ended": rep.ended,
            "cudagraphs": None if rep.cudagraphs is None else
            [{"compile_id": c.compile_id, "status": c.status, "ok": c.ok, "reason": c.reason}
             for c in rep.cudagraphs]}


def print_check(rep: AccuracyReport, console: Any) -> None:
    if rep.verdict == EXIT_SCRIPT_FAILED:
        console.print(f"[bold red]compdiag check: the script failed[/] (exit {rep.exit_code}, "
                      f"run {rep.run_id})" + (f": {escape(rep.ended)}" if rep.ended else ""))
    for g in rep.graphs:
        # a graph whose differences say nothing of the compiler (its own random numbers) is
        # neither a match nor a mismatch (probes43e train_running_stats_dict_ok: "ok" and
        # "matches eager" for a dropout graph explain called not comparable)
        mark = "[yellow]not compared[/]" if g.not_comparable else \
            "[green]ok[/]" if g.ok else "[bold red]MISMATCH[/]"
        said = escape(g.not_comparable) if g.not_comparable else \
            g.message if not g.ok else escape(g.caveat or "")
        console.print(f"  graph {g.compile_id}: {mark}  {said}")
    if rep.cudagraphs is not None:
        for c in rep.cudagraphs:
            mark = "[green]ok[/]" if c.ok else "[bold red]SKIPPED[/]"
            console.print(f"  cudagraphs {c.compile_id}: {mark}  {c.message}")
        if rep.cudagraphs_failed:
            bad = sum(not c.ok for c in rep.cudagraphs)
            console.print("[bold red]compdiag check: " + (
                f"CUDA graphs skipped {bad} of {plural(len(rep.cudagraphs), 'graph')}[/]"
                if bad else
                "no graph ran under CUDA graphs (compile with mode='reduce-overhead')[/]"))
        elif rep.verdict == 0:
            n = len(rep.cudagraphs)
            console.print(f"compdiag check: {'the graph' if n == 1 else f'all {n} graphs'} ran "
                          "under CUDA graphs")
        if not rep.graphs:
            return
    if not rep.graphs and rep.verdict != EXIT_SCRIPT_FAILED:
        console.print("compdiag check: no compiled graph was called; nothing to compare")
    elif rep.verdict == 0:
        apart = sum(bool(g.not_comparable) for g in rep.graphs)
        n = len(rep.graphs) - apart
        shaky = sum(g.caveat is not None for g in rep.graphs)
        console.print("compdiag check: " + (
            f"{plural(n, 'compiled graph')} {'matches' if n == 1 else 'match'} eager" if n
            else "no compiled graph could be compared with eager") + (
            f" within tolerance; {shaky} ill-conditioned (its rounding is "
            "amplified: `compdiag explain` says where)" if shaky else "") + (
            f"; {apart} not compared (it draws its own random numbers)" if apart else ""))
    elif rep.verdict == 1:
        bad = sum(not g.ok for g in rep.graphs)
        console.print(f"[bold red]compdiag check: {bad} of {plural(len(rep.graphs), 'compiled graph')} "
                      f"{'disagrees' if bad == 1 else 'disagree'} with eager[/]")
