"""`compdiag diff RUN_A RUN_B [--json]`: registered with the CLI through COMMANDS (see cli.py);
the comparison lives in diff.py, the terminal view here. `-` is only in RUN_A, `+` only in
RUN_B, `~` in both but a different number of times (or, for autotuning, another winner)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from compdiag.store.schema import SCHEMA_VERSION, default_store_path

_TITLES = {"run": "run", "compiles": "compiles", "graph_breaks": "graph breaks",
           "recompiles": "recompiles", "failures": "failures", "kernels": "kernels",
           "cudagraphs": "CUDA graphs", "autotune": "autotuning winners",
           "accuracy": "accuracy"}


def diff_document(reader: Any, run_a: int, run_b: int) -> dict[str, Any]:
    from compdiag.analyses.diff import diff_runs

    return {"schema_version": SCHEMA_VERSION, **diff_runs(reader, run_a, run_b)}


def cmd_diff(args: argparse.Namespace) -> int:
    from compdiag.cli import CLIError
    from compdiag.store.reader import Reader

    store = args.store if args.store is not None else default_store_path()
    with Reader(store) as reader:
        run_a, run_b = reader.resolve_run(args.run_a), reader.resolve_run(args.run_b)
        if run_a == run_b:
            raise CLIError(f"RUN_A and RUN_B are both run {run_a}: give two different runs")
        doc = diff_document(reader, run_a, run_b)
    if args.json:
        json.dump(doc, sys.stdout, default=repr)
        sys.stdout.write("\n")
    else:
        from rich.console import Console

        print_diff(doc, Console(highlight=False))
    return 0


def _label(f: dict[str, Any]) -> str:
    args = [str(x) for x in f.get("argv") or []]
    argv = " ".join([Path(args[0]).name, *args[1:]] if args else [])
    return (f"run {f['id']} ({argv[:60]}; torch {f.get('torch_version') or '?'}, "
            f"{f.get('device') or '?'}{', ' + f['mode'] if f.get('mode') else ''})")


def _totals_line(a: dict[str, Any], b: dict[str, Any]) -> str:
    parts = []
    if a.get("compile_s") is not None or b.get("compile_s") is not None:
        def s(x: Any) -> str:
            return f"{x:.1f} s" if x is not None else "-"
        parts.append(f"compile time {s(a.get('compile_s'))} vs {s(b.get('compile_s'))}")
    pa, pb = a.get("perf") or {}, b.get("perf") or {}
    if pa.get("speedup") and pb.get("speedup"):
        parts.append(f"speed-up over eager {pa['speedup']:.2f}x vs {pb['speedup']:.2f}x "
                     f"({pa.get('basis')}; each paired inside its own process)")
    return "; ".join(parts)


def _item(section: str, row: dict[str, Any]) -> str:
    if section == "run":
        return f"~ {row['field']}: {row['a']} -> {row['b']}"
    if section == "autotune":
        mark = "-" if row["b"] is None else "+" if row["a"] is None else "~"
        return f"{mark} {row['op']} #{row['n']}: {row['a'] or '(none)'} -> {row['b'] or '(none)'}"
    what = " ".join(str(v) for k, v in row.items() if k not in ("a", "b") and v != "")
    mark = "-" if row["b"] == 0 else "+" if row["a"] == 0 else "~"
    return f"{mark} {what}  ({row['a']} -> {row['b']})"


def print_diff(doc: dict[str, Any], console: Any) -> None:
    from rich.markup import escape

    a, b = doc["a"], doc["b"]
    console.print(f"[bold]{escape(_label(a))}[/]\n  vs [bold]{escape(_label(b))}[/]")
    totals = _totals_line(a, b)
    if totals:
        console.print(f"  {escape(totals)}")
    same = []
    for section, rows in doc["sections"].items():
        title = _TITLES.get(section, section)
        if not rows:
            same.append(title)
            continue
        console.print(f"[bold]{title}[/] ({len(rows)})")
        for row in rows:
            text = escape(_item(section, row))
            style = {"-": "red", "+": "green"}.get(text[:1], "yellow")
            console.print(f"  [{style}]{text}[/]")
    if doc["same"]:
        console.print("no differences (times and compile ids aside)")
    elif same:
        console.print(f"[dim]the same: {', '.join(same)}[/]")


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", type=Path, default=None, metavar="DB",
                   help="the SQLite log store (default ./.compdiag/compdiag.db)")
    p.add_argument("run_a", metavar="RUN_A", help="run id, or 'latest'")
    p.add_argument("run_b", metavar="RUN_B", help="run id, or 'latest'")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_diff)


COMMANDS = [("diff", register, "what two runs did differently: compiles, breaks, recompiles, "
             "failures, kernels, CUDA graphs, autotuning winners, accuracy")]
