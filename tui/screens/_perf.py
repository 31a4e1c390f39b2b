"""PerfScreen: a run's `compdiag perf` report, as filed in the store (`Reader.perf_report`):
per-graph eager vs compiled times with the speed-up's 95% interval, the whole calls of the
compiled modules, a bar per graph, the ranked limiters (enter opens the user's source), notes,
and the mode comparison with its recommendation when the report has one."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Header, Static

from compdiag.formats.words import plural
from compdiag_tui.perf_format import mib
from compdiag_tui.screens._steady import SteadyScreen
from compdiag_tui.widgets import (KeyBar, LimitersList, PerfBars, PerfGraphs, PerfModes,
                                  PerfSummary, RowsTable)
from compdiag_tui.widgets._limiters_list import limiter_detail
from compdiag_tui.widgets._perf_modes import recommendation_text


class PerfScreen(SteadyScreen):
    DEFAULT_CSS = """
    PerfScreen .title { height: 1; padding: 0 1; background: $boost; }
    PerfScreen #perf-body { height: 1fr; }
    PerfScreen .section { height: 1; padding: 0 1; margin-top: 1; color: $text-muted; }
    PerfScreen #limiter-detail { height: auto; padding: 0 1 0 5; }
    PerfScreen .note { height: auto; padding: 0 1; color: $text-muted; }
    PerfScreen #recommendation { height: auto; padding: 0 1; }
    """

    BINDINGS = [
        Binding("escape", "app.back", "Back"),
        Binding("tab", "app.focus_next", "Next table"),
        Binding("shift+tab", "app.focus_previous", "Prev table", show=False),
    ]

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id
        self.document: dict[str, Any] = {}
        self.report: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        model = self.app.model
        self.document = model.perf_report(self.run_id) or {}
        self.report = model.perf_section(self.run_id) or {}
        rep, modes = self.report, self.document.get("modes")
        yield Header()
        title = Text.assemble(("run ", "dim"), (str(self.run_id), "bold"),
                              ("  perf report", "bold"), ("  mode ", "dim"),
                              str(rep.get("mode") or "?"), ("  device ", "dim"),
                              str(rep.get("device") or "cpu"))
        title.append(f"  {plural(len(rep.get('graphs') or []), 'graph')} timed", "dim")
        title.append("  peak memory ", "dim")
        title.append(mib(rep.get("peak_rss_bytes")))
        if rep.get("peak_cuda_bytes"):
            title.append(f" (CUDA {mib(rep['peak_cuda_bytes'])})")
        yield Static(title, classes="title")
        with VerticalScroll(id="perf-body"):
            yield PerfSummary(id="perf-summary")
            yield Static("per compiled graph: eager vs compiled, median per call — enter opens "
                         "the compile id", classes="section")
            yield PerfGraphs(id="perf-graphs")
            yield PerfBars(id="perf-bars")
            yield Static("what limits it (most impact first; impact ≈ share of the compiled "
                         "time the cause touches) — enter opens the user's source",
                         classes="section", id="limiters-title")
            yield LimitersList(id="limiters")
            yield Static(id="limiter-detail")
            notes = rep.get("notes") or []
            if notes:
                yield Static(Text("\n".join(f"note: {n}" for n in notes)), classes="note",
                             id="perf-notes")
            if modes:
                yield Static("modes — each mode's speed-up is paired inside its own process; "
                             "enter opens that mode's report", classes="section")
                yield PerfModes(self.run_id, id="perf-modes")
                yield Static(recommendation_text(modes), id="recommendation")
        yield KeyBar()

    def on_mount(self) -> None:
        rep = self.report
        self.query_one(PerfSummary).report = rep
        self.query_one(PerfGraphs).rows_data = list(rep.get("graphs") or [])
        self.query_one(PerfBars).graphs = list(rep.get("graphs") or [])
        self.query_one(LimitersList).limiters = list(rep.get("limiters") or [])
        modes = self.document.get("modes")
        if modes:
            self.query_one(PerfModes).rows_data = list(modes.get("rows") or [])
        self.query_one(PerfGraphs).focus()

    def on_descendant_focus(self, event: Any) -> None:
        # The mode table is the last one: show the recommendation below it too.
        if isinstance(event.widget, PerfModes):
            self.query_one("#perf-body", VerticalScroll).scroll_end(animate=False)

    # -- messages from the tables -----------------------------------------------------------
    @on(LimitersList.LimiterHighlighted)
    def _limiter_highlighted(self, event: LimitersList.LimiterHighlighted) -> None:
        self.query_one("#limiter-detail", Static).update(limiter_detail(event.limiter))

    @on(LimitersList.LimiterChosen)
    def _limiter_chosen(self, event: LimitersList.LimiterChosen) -> None:
        if not self.app.open_finding(self.run_id, event.limiter):
            self.notify("this limiter has no source line or compile id to open")

    @on(RowsTable.RowChosen, "#perf-graphs")
    def _graph_chosen(self, event: RowsTable.RowChosen) -> None:
        cid = event.row.get("compile_id")
        if cid is not None and self.app.model.compile_info(self.run_id, str(cid)) is not None:
            self.app.open_compile(self.run_id, str(cid))

    @on(RowsTable.RowChosen, "#perf-modes")
    def _mode_chosen(self, event: RowsTable.RowChosen) -> None:
        run = event.row.get("run")
        if isinstance(run, int) and run != self.run_id:
            self.app.open_perf(run)
