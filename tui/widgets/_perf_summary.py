"""PerfSummary: the head of a run's perf report: the time of its compiled graphs (calls x
median, eager vs compiled), the whole calls of its compiled modules (what the program's own
timing sees), compile time, payback and peak memory."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from compdiag_tui.perf_format import fmt_time, median, speedup_text


def totals_line(rep: dict[str, Any]) -> Text | None:
    tot = rep.get("totals") or {}
    if not tot.get("speedup"):
        return None
    text = Text.assemble(("compiled graphs ", "bold"), ("(calls × median)  eager ", "dim"),
                         fmt_time(tot.get("eager_s")), ("  compiled ", "dim"),
                         fmt_time(tot.get("compiled_s")), ("  → ", "dim"))
    text.append_text(speedup_text(tot["speedup"]))
    text.append(f"   compile {fmt_time(tot.get('compile_s'))} over {tot.get('compiles')} "
                "compiles", "dim")
    if tot.get("payback_runs"):
        text.append(f", pays back after {tot['payback_runs']} runs like this one", "dim")
    return text


def module_line(m: dict[str, Any], outside: dict[str, Any] | None) -> Text | None:
    if median(m.get("eager")) is None or median(m.get("compiled")) is None:
        return None
    text = Text.assemble(("whole calls ", "bold"), (str(m.get("target")), "bold cyan"),
                         (f" ({m.get('calls')} calls, timed before call {m.get('at_call')})  "
                          "eager ", "dim"), fmt_time(median(m["eager"])), ("  compiled ", "dim"),
                         fmt_time(median(m["compiled"])), ("  → ", "dim"))
    text.append_text(speedup_text(m.get("speedup")))
    if outside and outside.get("target") == m.get("target"):
        text.append(f"   its graphs take {fmt_time(outside.get('graphs_compiled_s'))} of the "
                    "compiled call", "dim")
    return text


class PerfSummary(Static):
    """Set `report` (one run's part of the perf document)."""

    DEFAULT_CSS = """
    PerfSummary { height: auto; padding: 0 1; }
    """

    report: reactive[dict[str, Any] | None] = reactive(None, always_update=True)

    def watch_report(self) -> None:
        self.update(self.render_summary())

    def render_summary(self) -> Group:
        rep = self.report or {}
        lines = [module_line(m, rep.get("outside_graphs")) for m in rep.get("modules") or []]
        lines.append(totals_line(rep))
        return Group(*(line for line in lines if line is not None))
