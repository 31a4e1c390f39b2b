"""`compdiag diff`'s document (--json) and its lines, for a terminal and the TUI alike: `-` is
only in RUN_A, `+` only in RUN_B, `~` in both but a different number of times (or, for
autotuning, another winner). The comparison itself is compdiag/analyses/diff.py."""

from __future__ import annotations

import os
from typing import Any

from compdiag.store.schema import SCHEMA_VERSION


def diff_document(reader: Any, run_a: int, run_b: int) -> dict[str, Any]:
    from compdiag.analyses.diff import diff_runs

    return {"schema_version": SCHEMA_VERSION, **diff_runs(reader, run_a, run_b)}


TITLES = {"run": "run", "compiles": "compiles", "graph_breaks": "graph breaks",
          "recompiles": "recompiles", "failures": "failures", "kernels": "kernels",
          "cudagraphs": "CUDA graphs", "autotune": "autotuning winners", "accuracy": "accuracy",
          "caches": "cache lookups"}
# Rich styles of describe()'s line kinds, for the CLI and the TUI alike.
STYLES = {"title": "bold", "note": "", "section": "bold", "-": "red", "+": "green",
          "~": "yellow", "same": "dim"}


def label(facts: dict[str, Any]) -> str:
    args = [str(x) for x in facts.get("argv") or []]
    argv = " ".join([os.path.basename(args[0]), *args[1:]] if args else [])
    mode = f", {facts['mode']}" if facts.get("mode") else ""
    return (f"run {facts['id']} ({argv[:60]}; torch {facts.get('torch_version') or '?'}, "
            f"{facts.get('device') or '?'}{mode})")


def _totals(a: dict[str, Any], b: dict[str, Any]) -> str:
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


def _item(section: str, row: dict[str, Any]) -> tuple[str, str]:
    if section == "run":
        return "~", f"~ {row['field']}: {row['a']} -> {row['b']}"
    if section == "autotune":
        mark = "-" if row["b"] is None else "+" if row["a"] is None else "~"
        return mark, (f"{mark} {row['op']} #{row['n']}: {row['a'] or '(none)'} -> "
                      f"{row['b'] or '(none)'}")
    if section == "caches":
        mark = "-" if row["b"] is None else "+" if row["a"] is None else "~"
        changed = "; ".join(c["summary"] for c in row["changed"][:3])
        more = f" (+{len(row['changed']) - 3} more)" if len(row["changed"]) > 3 else ""
        return mark, (f"{mark} {row['function']} ({row['where']}) {row['cache']}: "
                      f"{row['a'] or '(none)'} -> {row['b'] or '(none)'}"
                      f"{': ' + changed + more if changed else ''}")
    what = " ".join(str(v) for k, v in row.items() if k not in ("a", "b") and v != "")
    mark = "-" if row["b"] == 0 else "+" if row["a"] == 0 else "~"
    return mark, f"{mark} {what}  ({row['a']} -> {row['b']})"


def _cache_summary(rows: list[dict[str, Any]]) -> str:
    """': 4 miss -> hit (3.20 s of compile time saved)', or '' (the time: torch's figure
    for the hits)."""
    parts = []
    for was, now in (("miss", "hit"), ("hit", "miss")):
        moved = [r for r in rows if r["a"] == was and r["b"] == now]
        if not moved:
            continue
        text = f"{len(moved)} {was} -> {now}"
        saved = [r["time_saved_s"] for r in moved if r.get("time_saved_s") is not None]
        if saved:
            text += f" ({sum(saved):.2f} s of compile time saved)"
        parts.append(text)
    return ": " + "; ".join(parts) if parts else ""


def describe(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """The diff as (kind, text) lines, kind one of title, note, section, -, +, ~, same: `-` is
    only in RUN_A, `+` only in RUN_B, `~` in both but a different number of times (or, for
    autotuning, another winner). STYLES gives each kind its style."""
    a, b = doc["a"], doc["b"]
    lines = [("title", label(a)), ("title", f"  vs {label(b)}")]
    totals = _totals(a, b)
    if totals:
        lines.append(("note", f"  {totals}"))
    same = [TITLES.get(k, k) for k in TITLES if not doc["sections"].get(k)]
    same += [k for k, rows in doc["sections"].items() if k not in TITLES and not rows]
    for section, rows in sorted(doc["sections"].items(), key=lambda kv: kv[0] != "caches"):
        title = TITLES.get(section, section)
        if not rows:
            continue
        head = f"{title} ({len(rows)})"
        if section == "caches":
            head += _cache_summary(rows)
        lines.append(("section", head))
        lines.extend((kind, f"  {text}") for kind, text in (_item(section, r) for r in rows))
    if doc["same"]:
        lines.append(("same", "no differences (times and compile ids aside)"))
    elif same:
        lines.append(("same", f"the same: {', '.join(same)}"))
    return lines


def print_diff(doc: dict[str, Any], console: Any) -> None:
    from rich.markup import escape

    for kind, text in describe(doc):
        style = STYLES.get(kind, "")
        console.print(f"[{style}]{escape(text)}[/]" if style else escape(text))
