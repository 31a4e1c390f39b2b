"""JobScreen: a torchrun job's ranks side by side (`compdiag explain --job`), divergences
highlighted; opened with j from the runs list on any run of the job. Enter on a divergence
opens the user's line it names (in the run of the first rank that differs)."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.widgets import Header, Static

from compdiag.formats.words import plural
from compdiag.views.job import differing_rows
from compdiag_tui.screens._steady import SteadyScreen
from compdiag_tui.widgets import JobTable, KeyBar


class JobScreen(SteadyScreen):
    DEFAULT_CSS = """
    JobScreen .title { height: 1; padding: 0 1; background: $boost; }
    JobScreen #job-reasons { height: auto; max-height: 12; padding: 0 1; }
    """

    BINDINGS = [("escape", "app.back", "Back"), ("enter", "open", "Open line")]

    def __init__(self, job: str) -> None:
        super().__init__()
        self.job = job

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"job {self.job}: comparing its ranks…", classes="title", id="job-title")
        yield JobTable(id="job")
        yield Static(id="job-reasons")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(JobTable).focus()
        self._load()

    @work(thread=True, exclusive=True)
    def _load(self) -> None:
        doc = self.app.model.job_document(self.job)
        self.app.call_from_thread(self._show, doc)

    def _show(self, doc: dict[str, Any]) -> None:
        self.query_one(JobTable).document = doc
        divs = [d for d in doc["diagnoses"] if d["kind"] == "divergence"]
        n = len(doc["job"]["ranks"])
        differ = differing_rows(doc["job"])
        title = (f"job {self.job}: {plural(n, 'rank')}, "
                 + (plural(len(divs), "divergence") if divs
                    else f"no divergence; they differ in {', '.join(differ)}" if differ
                    else "the ranks compiled alike"))
        self.query_one("#job-title", Static).update(title)
        self.query_one("#job-reasons", Static).update(
            "\n".join(f"≠ {d['reason']}" for d in divs))

    def action_open(self) -> None:
        self.query_one(JobTable).action_select_cursor()

    def on_job_table_divergence_chosen(self, event: JobTable.DivergenceChosen) -> None:
        if not self.app.open_finding(event.run_id, event.diagnosis):
            self.app.open_run(event.run_id)
