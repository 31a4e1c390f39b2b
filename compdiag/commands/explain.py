"""`compdiag explain [RUN] [--json]`: the analysis is compdiag/analyses/explain.py; the terminal
view lives here."""

from __future__ import annotations

import argparse
import os
from typing import Any

from compdiag.commands._common import CLIError, add_store_arg, emit_json, store_path
from compdiag.store.schema import SCHEMA_VERSION

HELP = "ranked diagnoses with the user's line and the fix"

_KIND_STYLE = {"failure": "bold red", "recompile": "magenta", "graph_break": "yellow",
               "accuracy": "bold red", "cudagraph": "cyan", "fusion": "blue", "perf": "blue"}
_KIND_TITLE = {"failure": "failure", "recompile": "recompile", "graph_break": "graph break",
               "accuracy": "accuracy mismatch", "cudagraph": "CUDA graphs skipped",
               "fusion": "missed fusion", "perf": "perf"}


def explain_document(reader: Any, run_id: int) -> dict[str, Any]:
    from compdiag.analyses.explain import explain, public
    from compdiag.views.show import run_summary

    run = reader.run(run_id)
    summary = run_summary(reader, run)
    summary["counts"] = reader.counts(run_id)
    return {"schema_version": SCHEMA_VERSION, "run": summary,
            "diagnoses": [public(d) for d in explain(reader, run_id)]}


def cmd_explain(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader

    if args.limit < 1:
        raise CLIError(f"--limit must be at least 1, not {args.limit}")
    with Reader(store_path(args)) as reader:
        doc = explain_document(reader, reader.resolve_run(args.run))
    if args.json:
        emit_json(doc)
    else:
        from rich.console import Console

        print_explain(doc, Console(), limit=args.limit)
    return 0


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN", help="run id (default: the latest)")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument("--limit", type=int, default=10, metavar="N",
                   help="show at most N diagnoses in the terminal (default 10; --json has all)")
    p.set_defaults(func=cmd_explain)



# -- the terminal view -------------------------------------------------------------------------
def _excerpt(frame: dict[str, Any]):
    """Syntax-highlighted lines around the user's line, or None when the file is gone."""
    from rich.syntax import Syntax

    fn, lineno = frame.get("filename"), frame.get("lineno")
    if not fn or not lineno or not os.path.isfile(fn):
        return None
    try:
        with open(fn, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    if not 1 <= lineno <= len(lines):
        return None
    start, end = max(1, lineno - 2), min(len(lines), lineno + 2)
    code = "\n".join(lines[start - 1:end])
    return Syntax(code, "python", line_numbers=True, start_line=start,
                  highlight_lines={lineno}, theme="ansi_dark", word_wrap=True)


def print_explain(doc: dict[str, Any], console: Any, limit: int = 10) -> None:
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    run = doc["run"]
    diags = doc["diagnoses"]
    argv = " ".join(run.get("argv") or [])
    c = run.get("counts") or {}
    head = (f"[bold]run {run['id']}[/] {argv}  exit={run.get('exit_code')}  "
            f"{c.get('compiles', 0)} compiles, {c.get('graph_breaks', 0)} graph breaks, "
            f"{c.get('recompiles', 0)} recompile reasons, {c.get('failures', 0)} failures")
    console.print(head)
    if not diags:
        console.print(f"[green]run {run['id']}: no problems found[/] — no graph breaks, "
                      "recompiles, failures, CUDA-graph skips or missed fusions recorded.")
        return
    for i, d in enumerate(diags[:limit], 1):
        style = _KIND_STYLE.get(d["kind"], "")
        title = f"#{i} {_KIND_TITLE.get(d['kind'], d['kind'])}"
        if d.get("stage"):
            title += f" [{d['stage']}]"
        if d.get("gb_code"):
            title += f" {d['gb_code']}"
        if d.get("count", 1) > 1:
            title += f" ×{d['count']}"
        if d.get("compile_id"):
            title += f"  compile {d['compile_id']}"
        body: list[Any] = [Text(d["reason"], style="bold")]
        uf = d.get("user_frame") or {}
        if uf.get("filename"):
            loc = Text(f"at {uf['filename']}:{uf['lineno']}", style="dim")
            body.append(loc)
            ex = _excerpt(uf)
            if ex is not None:
                body.append(ex)
            elif uf.get("line"):
                body.append(Text(f"    {uf['line']}", style="italic"))
        if d.get("explanation"):
            body.append(Text(d["explanation"]))
        details = d.get("details") or {}
        if d["kind"] == "recompile" and details.get("values"):
            vals = ", ".join(str(v) for v in details["values"][:8])
            body.append(Text(f"guard {details.get('guard')}: values seen {vals}", style="dim"))
        hints = [h for h in d.get("hints") or [] if "report an issue" not in h.lower()]
        for h in hints[:2]:
            body.append(Text(f"torch hint: {h}", style="dim"))
        fix = Text("fix: ", style="bold green")
        fix.append(d["fix"], style="green")
        body.append(fix)
        if details.get("url"):
            body.append(Text(details["url"], style="dim underline"))
        console.print(Panel(Group(*body), title=title, title_align="left", border_style=style))
    if len(diags) > limit:
        console.print(f"[dim]… {len(diags) - limit} more (use --limit or --json)[/]")
