"""RunScreen: a run's compile tree (frames -> compile ids), the highlighted compile's summary,
and the diagnoses panel with jump-to-source; `p` opens the run's perf report when it has one."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Header, Static

from compdiag.formats.words import plural
from compdiag_tui.model import STATUS_NOUN
from compdiag_tui.screens._steady import SteadyScreen
from compdiag_tui.widgets._compile_summary import CompileSummary
from compdiag_tui.widgets._compile_tree import CompileTree
from compdiag_tui.widgets._diagnoses_panel import DiagnosesPanel, kind_styles
from compdiag_tui.widgets._key_bar import KeyBar


class RunScreen(SteadyScreen):
    DEFAULT_CSS = """
    RunScreen .title { height: 1; padding: 0 1; background: $boost; }
    RunScreen #main { height: 1fr; }
    RunScreen #tree-box { width: 3fr; border-right: vkey $primary-background; }
    RunScreen #summary-box { width: 2fr; }
    RunScreen #diagnoses-box { height: 11; border-top: hkey $primary-background; }
    RunScreen #diagnoses-box.hidden { display: none; }
    RunScreen .panel-title { height: 1; padding: 0 1; color: $text-muted; }
    """

    BINDINGS = [
        Binding("enter", "open_compile", "Stages", show=True),
        Binding("d", "toggle_diagnoses", "Diagnoses"),
        Binding("tab", "focus_next", "Next pane", show=False),
        Binding("o", "open_source", "Source"),
        Binding("p", "perf", "Perf"),       # shown when the run has a perf report
    ]

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id
        self.diagnoses: list[dict[str, Any]] | None = None
        self.diagnoses_source = ""
        self.has_perf = False      # known after the first paint (the report is not read before)

    def compose(self) -> ComposeResult:
        model = self.app.model
        run = model.run(self.run_id)
        index = model.compile_index(self.run_id)
        counts: dict[str, int] = {}
        for c in index:
            counts[c.display_status] = counts.get(c.display_status, 0) + 1
        yield Header()
        title = Text.assemble(("run ", "dim"), (str(self.run_id), "bold"), "  ",
                              " ".join(run.get("argv") or []), "  ",
                              (plural(len(index), "compile"), "bold"))
        for status, style in (("graph_break", "yellow"), ("recompile", "magenta"),
                              ("failed", "bold red")):
            if counts.get(status):
                title.append(f"  {plural(counts[status], STATUS_NOUN[status])}", style)
        exit_code = run.get("exit_code")
        title.append(f"  status={run['status']} exit={'-' if exit_code is None else exit_code}",
                     "dim")
        yield Static(title, classes="title")
        with Horizontal(id="main"):
            with Vertical(id="tree-box"):
                yield CompileTree(id="tree")
            with Vertical(id="summary-box"):
                yield CompileSummary(id="summary", classes="fixed")
        with Vertical(id="diagnoses-box"):
            yield Static("diagnoses", classes="panel-title", id="diagnoses-title")
            yield DiagnosesPanel(id="diagnoses")
        yield KeyBar()

    def on_mount(self) -> None:
        tree = self.query_one(CompileTree)
        tree.frames = self.app.model.frames(self.run_id)
        tree.focus()
        # The first compile's summary goes into the same frame as the tree, not a frame later
        # (its CompileHighlighted message then finds it shown).
        self._show_summary(tree.current_compile)
        self.query_one(DiagnosesPanel).diagnoses = None
        # After the first paint: explain reads the whole run and must not delay the tree.
        self.call_after_refresh(self._load_diagnoses)
        self.call_after_refresh(self._check_perf)

    # -- `compdiag perf`'s report (`p`) -------------------------------------------------------
    def _check_perf(self) -> None:
        self.has_perf = self.app.model.perf_report(self.run_id) is not None
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without a report the key falls through to the app's `p`, which says there is none.
        return self.has_perf if action == "perf" else True

    def action_perf(self) -> None:
        self.app.open_perf(self.run_id)

    # -- diagnoses (a worker: explain may take a while on a big run) --------------------------
    @work(thread=True, exclusive=True, group="diagnoses")
    def _load_diagnoses(self) -> None:
        # The thread only waits on a child process: explain's CPU work never holds our GIL.
        from compdiag_tui.diagnoses import load_diagnoses_isolated

        try:
            diagnoses, source = load_diagnoses_isolated(self.app.model.path, self.run_id), \
                "explain"
        except Exception as exc:  # noqa: BLE001 - a panel that failed must not end the app
            diagnoses, source = [], f"nowhere: {type(exc).__name__}: {exc}"[:200]
        kind_styles(d.get("kind") for d in diagnoses)  # the kinds' specs, loaded here
        self.app.call_from_thread(self._show_diagnoses, diagnoses, source)

    def _show_diagnoses(self, diagnoses: list[dict[str, Any]], source: str) -> None:
        self.diagnoses = diagnoses
        self.diagnoses_source = source
        if not self.query(DiagnosesPanel):      # the screen was left (escape) meanwhile
            return
        self.query_one(DiagnosesPanel).diagnoses = diagnoses
        self.query_one("#diagnoses-title", Static).update(
            f"diagnoses ({len(diagnoses)}, from {source}) — enter jumps to the user's source")

    @on(DiagnosesPanel.DiagnosisChosen)
    def _diagnosis_chosen(self, event: DiagnosesPanel.DiagnosisChosen) -> None:
        self.app.open_finding(self.run_id, event.diagnosis)

    # -- the tree --------------------------------------------------------------------------
    @on(CompileTree.CompileHighlighted)
    def _highlighted(self, event: CompileTree.CompileHighlighted) -> None:
        self._show_summary(event.compile_id)

    def _show_summary(self, compile_id: str | None) -> None:
        summary = self.query_one(CompileSummary)
        if compile_id is None:
            summary.info = None
            summary.details = None
            return
        if summary.info is not None and summary.info.compile_id == compile_id \
                and summary.details is not None:
            return
        model = self.app.model
        summary.info = model.compile_info(self.run_id, compile_id)
        summary.details = model.details(self.run_id, compile_id)

    @on(CompileTree.CompileChosen)
    def _chosen(self, event: CompileTree.CompileChosen) -> None:
        self.app.open_compile(self.run_id, event.compile_id)

    @property
    def selected_compile(self) -> str | None:
        return self.query_one(CompileTree).current_compile

    def action_open_compile(self) -> None:
        cid = self.selected_compile
        if cid is not None:
            self.app.open_compile(self.run_id, cid)
        else:
            tree = self.query_one(CompileTree)
            if tree.cursor_node is not None:
                tree.cursor_node.toggle()

    def action_toggle_diagnoses(self) -> None:
        box = self.query_one("#diagnoses-box")
        box.toggle_class("hidden")
        if not box.has_class("hidden"):
            self.query_one(DiagnosesPanel).focus()
        else:
            self.query_one(CompileTree).focus()

    def action_open_source(self) -> None:
        """The user's source of the highlighted compile's first graph break (or its frame)."""
        cid = self.selected_compile
        if cid is None:
            return
        details = self.app.model.details(self.run_id, cid)
        for row in details["graph_breaks"] + details["failures"]:
            if row.get("filename") and row.get("lineno"):
                self.app.open_source(self.run_id, row["filename"], int(row["lineno"]),
                                     row.get("line"), title=row.get("reason") or "")
                return
        info = self.app.model.compile_info(self.run_id, cid)
        if info and info.filename and info.lineno:
            self.app.open_source(self.run_id, info.filename, int(info.lineno), None,
                                 title=f"{info.co_name}")
