"""RunsScreen: every run in the store."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Header, Static

from compdiag_tui.screens._steady import SteadyScreen
from compdiag_tui.widgets import RunsTable, KeyBar


class RunsScreen(SteadyScreen):
    DEFAULT_CSS = """
    RunsScreen .title { height: 1; padding: 0 1; background: $boost; }
    """

    BINDINGS = [("enter", "open", "Open run"), ("space", "mark", "Mark for diff"),
                ("d", "diff", "Diff with marked"), ("j", "job", "Job's ranks")]

    marked: int | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"runs in {self.app.model.path}", classes="title")
        yield RunsTable(id="runs")
        yield KeyBar()

    def on_mount(self) -> None:
        model = self.app.model
        runs = []
        for run in model.runs():
            runs.append({**run, "counts": model.counts(run["id"])})
        table = self.query_one(RunsTable)
        table.runs = runs
        if runs:
            table.move_cursor(row=len(runs) - 1)
        table.focus()

    @property
    def run_id(self) -> int | None:
        """The highlighted run: what the app's run commands (p, b) act on from this list."""
        table = self.query_one(RunsTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:  # noqa: BLE001 - no cursor yet
            return None
        return int(key) if key is not None else None

    def action_open(self) -> None:
        table = self.query_one(RunsTable)
        if table.row_count:
            table.action_select_cursor()

    def on_runs_table_run_chosen(self, event: RunsTable.RunChosen) -> None:
        self.app.open_run(event.run_id)

    def action_mark(self) -> None:
        self.marked = self.run_id
        if self.marked is not None:
            self.notify(f"run {self.marked} marked: highlight another run and press d")

    def action_diff(self) -> None:
        other = self.run_id
        if self.marked is None or other is None:
            self.notify("mark a run with space first, then press d on another", severity="warning")
            return
        if other == self.marked:
            self.notify(f"run {other} is the marked run: highlight another", severity="warning")
            return
        from compdiag_tui.screens import DiffScreen

        self.app.push_screen(DiffScreen(self.marked, other))

    def action_job(self) -> None:
        run_id = self.run_id
        job = self.app.model.run(run_id).get("job") if run_id is not None else None
        if job is None:
            self.notify("this run is not a rank of a torchrun job", severity="warning")
            return
        from compdiag_tui.screens import JobScreen

        self.app.push_screen(JobScreen(job))
