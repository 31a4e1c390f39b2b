"""How the TUI words a `compdiag perf` report (the --json document `Reader.perf_report` returns):
speed-ups with their 95% interval, verdict colours, times and sizes, in `compdiag perf`'s own
words where its text report has them (compdiag.views.perf's formatters).
Imported by the perf screen and its widgets only, never on the way to the first screen."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from compdiag.views.perf import compile_text, fmt_ratio, fmt_time, payback_text, short_function
from compdiag.views.perf import fmt_ci as ci_text
from compdiag.views.perf import fmt_mib as mib
from compdiag.views.perf import fmt_x as times_x

__all__ = ["VERDICT_STYLE", "ci_text", "compile_text", "fmt_ratio", "fmt_time",
           "graph_perf_line", "median", "mib", "payback_text", "ratio_text", "short_function",
           "speedup_text", "times_x", "verdict_text"]

VERDICT_STYLE = {"faster": "bold green", "slower": "bold red", "within noise": "yellow",
                 "too few samples": "dim"}


def ratio_text(sp: dict[str, Any] | None) -> Text:
    """'1.70x', coloured by the verdict."""
    sp = sp or {}
    return Text(times_x(sp.get("ratio")), VERDICT_STYLE.get(sp.get("verdict") or "", ""))


def speedup_text(sp: dict[str, Any] | None) -> Text:
    """'1.70x [1.02-2.19] faster', coloured by the verdict."""
    sp = sp or {}
    style = VERDICT_STYLE.get(sp.get("verdict") or "", "")
    text = ratio_text(sp)
    if sp.get("lo") is not None and sp.get("hi") is not None:
        text.append(f" [{ci_text(sp['lo'], sp['hi'])}]", "dim")
    if sp.get("verdict"):
        text.append(f" {sp['verdict']}", style)
    return text


def verdict_text(sp: dict[str, Any] | None) -> Text:
    v = (sp or {}).get("verdict") or "-"
    return Text(v, VERDICT_STYLE.get(v, ""))


def median(side: dict[str, Any] | None) -> float | None:
    return (side or {}).get("median")


def graph_perf_line(g: dict[str, Any]) -> Text:
    """One compiled graph's timing in a line (the compile's Summary tab)."""
    text = Text.assemble(("perf ", "bold"), ("eager ", "dim"), fmt_time(median(g.get("eager"))),
                         ("  compiled ", "dim"), fmt_time(median(g.get("compiled"))), "  ")
    text.append_text(speedup_text(g.get("speedup")))
    if g.get("compile_s") is not None:
        text.append("  compile ", "dim")
        text.append(fmt_time(g["compile_s"]))
    text.append("  payback ", "dim")
    text.append(payback_text(g))
    if g.get("calls"):
        text.append(f"  called {g['calls']} times in the run", "dim")
    return text
