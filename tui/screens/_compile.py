"""CompileScreen: one compile id's stages as tabs. Each tab's content is built, and its
payloads fetched, the first time the tab is shown."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Header, Static

from compdiag_tui.model import ARTIFACT_TABS, KIND_TAB, STATUS_STYLE, STATUS_WORD
from compdiag_tui.screens._steady import SteadyScreen
from compdiag_tui.widgets import (ArtifactView, CodeView, CompileSummary, KernelView, KeyBar,
                                  RecordsView, RowsTable, TabStrip, TimingChart)

TABS = [
    ("overview", "Summary"), ("bytecode", "Bytecode"), ("dynamo", "Dynamo"),
    ("aot", "AOT"), ("postgrad", "Post-grad"), ("fusion", "Fusion"),
    ("kernels", "Kernels"), ("cudagraphs", "CUDA graphs"), ("timings", "Timings"),
    ("accuracy", "Accuracy"), ("raw", "Records"),
]
TAB_KEYS = "1234567890r"


class CompileScreen(SteadyScreen):
    DEFAULT_CSS = """
    CompileScreen .title { height: 1; padding: 0 1; background: $boost; }
    CompileScreen ContentSwitcher { height: 1fr; }
    CompileScreen ContentSwitcher > * { height: 1fr; }
    CompileScreen .note { height: auto; padding: 0 1; color: $text-muted; }
    CompileScreen .perf-line { height: auto; padding: 0 1; margin-top: 1; }
    """

    BINDINGS = [
        Binding("escape", "app.back", "Back"),
        Binding("right_square_bracket", "tab(1)", "Next tab"),
        Binding("left_square_bracket", "tab(-1)", "Prev tab"),
        *[Binding(key, f"show_tab('{tid}')", title, show=False)
          for key, (tid, title) in zip(TAB_KEYS, TABS)],
    ]

    def __init__(self, run_id: int, compile_id: str, *, tab: str = "overview",
                 kind: str | None = None, match: str | None = None) -> None:
        super().__init__()
        self.run_id = run_id
        self.compile_id = compile_id
        self.initial_tab = tab
        self.initial_kind = kind
        self.initial_match = match
        self.loaded: set[str] = set()
        self._kinds: dict[str, int] | None = None

    @property
    def model(self):
        return self.app.model

    @property
    def kinds(self) -> dict[str, int]:
        if self._kinds is None:
            self._kinds = self.model.record_kinds(self.run_id, self.compile_id)
        return self._kinds

    def compose(self) -> ComposeResult:
        info = self.model.compile_info(self.run_id, self.compile_id)
        yield Header()
        title = Text.assemble(("run ", "dim"), str(self.run_id), ("  compile ", "dim"),
                              (self.compile_id, "bold"))
        if info is not None:
            status = info.display_status
            title.append(f"  {STATUS_WORD[status]}", STATUS_STYLE[status])
            title.append(f"  {info.co_name}", "bold cyan")
            title.append(f"  {info.filename}:{info.lineno}", "dim")
        yield Static(title, classes="title")
        yield TabStrip([(tid, label, self._has_content(tid)) for tid, label in TABS],
                       self.initial_tab, keys=TAB_KEYS, id="stages")
        yield ContentSwitcher(id="panes")
        yield KeyBar()

    def _has_content(self, tab: str) -> bool:
        kinds = self.kinds
        if tab in ARTIFACT_TABS:
            return any(k in kinds for _, ks, _ in ARTIFACT_TABS[tab] for k in ks)
        if tab == "kernels":
            return "inductor_output_code" in kinds
        if tab == "timings":
            return "compilation_metrics" in kinds or "chromium_event" in kinds
        return True

    def on_mount(self) -> None:
        self.show(self.initial_tab, self.initial_kind, self.initial_match)

    @on(TabStrip.Activated, "#stages")
    def _activated(self, event: TabStrip.Activated) -> None:
        self.show(event.tab_id)

    @property
    def active_tab(self) -> str:
        return self.query_one("#stages", TabStrip).active

    def action_tab(self, delta: int) -> None:
        ids = [tid for tid, _ in TABS]
        i = ids.index(self.active_tab) if self.active_tab in ids else 0
        self.show(ids[(i + delta) % len(ids)])

    def action_show_tab(self, tab: str) -> None:
        self.show(tab)

    def show(self, tab: str, kind: str | None = None, match: str | None = None) -> None:
        """Go to a tab (built on first use), optionally a record kind in it and a text in its
        code."""
        self.query_one("#stages", TabStrip).active = tab
        switcher = self.query_one(ContentSwitcher)
        if tab not in self.loaded:
            self.loaded.add(tab)
            widget = self._build(tab)
            widget.id = f"pane-{tab}"
            switcher.mount(widget)
            switcher.current = widget.id
            self.call_after_refresh(self._after_build, tab, widget, kind, match)
        else:
            switcher.current = f"pane-{tab}"
            pane = switcher.query_one(f"#pane-{tab}")
            _focus_first(pane)
            if kind or match:
                self._after_build(tab, pane, kind, match)

    def _after_build(self, tab: str, widget: Widget | None, kind: str | None,
                     match: str | None) -> None:
        if widget is None:
            return
        _focus_first(widget)
        if kind and isinstance(widget, (ArtifactView, RecordsView)):
            widget.select(kind)
        if match:
            views = list(widget.query(CodeView)) if not isinstance(widget, CodeView) else [widget]
            for view in views:
                view.match_text = match

    def _build(self, tab: str) -> Widget:
        run_id, cid, model = self.run_id, self.compile_id, self.model
        if tab == "overview":
            summary = CompileSummary()
            summary.info = model.compile_info(run_id, cid)
            summary.details = model.details(run_id, cid)
            perf = self._perf_line()
            return VerticalScroll(summary, *([perf] if perf is not None else []))
        if tab in ARTIFACT_TABS:
            return ArtifactView(ARTIFACT_TABS[tab],
                                lambda kinds: model.artifact(run_id, cid, kinds),
                                available=set(self.kinds))
        if tab == "kernels":
            view = KernelView(lambda kid: model.kernel_source(run_id, kid),
                              lambda: model.artifact(run_id, cid, ("inductor_output_code",)))
            view.kernels = model.kernels(run_id, cid)
            return view
        if tab == "fusion":
            return _with_note(self._fusion_note(), _table(
                [("fused", lambda r: r["fused"]), ("node 1", lambda r: r["node1"]),
                 ("node 2", lambda r: r["node2"]), ("reason", lambda r: r["reason"])],
                model.fusion(run_id, cid),
                "no fusion decisions recorded (the fusion logger saw none for this graph)"))
        if tab == "cudagraphs":
            return _table([("applied", lambda r: r["applied"]),
                           ("reason", lambda r: r["reason"])], model.cudagraphs(run_id, cid),
                          "no CUDA graph records (run with --mode reduce-overhead on CUDA)")
        if tab == "accuracy":
            return _table([("output", lambda r: r["output"]), ("ok", lambda r: r["ok"]),
                           ("max abs", lambda r: r["max_abs"]),
                           ("max rel", lambda r: r["max_rel"]),
                           ("detail", lambda r: r["detail"])], model.accuracy(run_id, cid),
                          "no accuracy checks recorded (compdiag run --check-accuracy)")
        if tab == "timings":
            info = model.compile_info(run_id, cid)
            chart = TimingChart()
            chart.times = dict(info.stage_times) if info else {}
            return VerticalScroll(chart, *self._wall_time(model.compile_time(run_id, cid)))
        if tab == "raw":
            view = RecordsView(lambda kind: model.reader.records(run_id, kind=kind,
                                                                 compile_id=cid))
            view.kinds = dict(self.kinds)
            return view
        return Static(f"unknown tab {tab}")

    def _wall_time(self, ct: dict[str, Any] | None) -> list[Widget]:
        """Where the compile's wall time went (exclusive stages, unaccounted, guards), under
        torch's own cumulative timers."""
        if not ct:
            return []
        from compdiag.views.compile_time import compile_time_lines, guard_lines

        how = ("each moment counted once, for the innermost timed region"
               if ct["source"] == "chromium_events" else
               "compilation_metrics' nested timers, each counted once")
        head = Text(f"where the wall time went ({how})\n", "bold")
        body = Text("\n".join([*compile_time_lines({**ct, "compiles": 1}, top=12),
                               *guard_lines(ct.get("guards"))]))
        return [Static(head + body, id="wall-time", classes="wall-time")]

    def _perf_line(self) -> Static | None:
        """This graph's line of the run's perf report, if `compdiag perf` timed it."""
        rep = self.model.perf_section(self.run_id)
        graph = next((g for g in (rep or {}).get("graphs") or []
                      if g.get("compile_id") == self.compile_id), None)
        if graph is None:
            return None
        from compdiag_tui.perf_format import graph_perf_line

        line = graph_perf_line(graph)
        line.append("  (p: the run's perf report)", "dim")
        return Static(line, classes="perf-line")

    def _fusion_note(self) -> Group:
        rows = self.model.fusion(self.run_id, self.compile_id)
        fused = sum(1 for r in rows if r["fused"])
        return Group(Text(f"{fused} fused pairs, {len(rows) - fused} 'cannot fuse' decisions",
                          "bold"))


def _table(columns: list[tuple[str, Any]], rows: list[dict[str, Any]], empty: str) -> RowsTable:
    table = RowsTable(columns, empty_text=empty)
    table.rows_data = rows
    return table


def _with_note(note: Any, widget: Widget) -> Widget:
    from textual.containers import Vertical

    return Vertical(Static(note, classes="note"), widget)


def _focus_first(widget: Widget) -> None:
    """Keys go to the pane just shown (its code view, list or table)."""
    for node in widget.query("*"):
        if node.focusable:
            node.focus()
            return


def tab_for_kind(kind: str) -> str:
    return KIND_TAB.get(kind, "raw")
