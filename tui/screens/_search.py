"""SearchScreen (/): search graphs, code, guards and reasons of a run; a hit opens its compile
id at the matching tab and line. The query runs in a thread worker on its own connection, so
typing never waits for SQLite."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from compdiag.store.reader import Reader

DEBOUNCE_S = 0.15


class SearchScreen(ModalScreen[dict[str, Any] | None]):
    DEFAULT_CSS = """
    SearchScreen { align: center top; }
    SearchScreen > Vertical { width: 90%; height: 80%; margin-top: 2; border: thick $accent;
                              background: $surface; }
    SearchScreen Input { margin: 0 0 0 0; }
    SearchScreen #search-status { height: 1; padding: 0 1; color: $text-muted; }
    SearchScreen OptionList { height: 1fr; border: none; }
    """

    BINDINGS = [Binding("escape", "dismiss_none", "Close"),
                Binding("down", "focus_results", "Results", show=False)]

    def __init__(self, run_id: int, query: str = "") -> None:
        super().__init__()
        self.run_id = run_id
        self.initial_query = query
        self.hits: list[dict[str, Any]] = []
        self._timer: Timer | None = None
        self.searches = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(value=self.initial_query, id="search-input",
                        placeholder="search graphs, bytecode, guards, kernels, reasons…")
            yield Static("type to search this run's records", id="search-status")
            yield OptionList(id="search-results")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self.initial_query:
            self._search(self.initial_query)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        text = event.value
        self._timer = self.set_timer(DEBOUNCE_S, lambda: self._search(text))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        results = self.query_one(OptionList)
        if results.option_count and self.hits:
            results.focus()
            results.highlighted = 0
            return
        if self._timer is not None:
            self._timer.stop()
        self._search(event.value)

    def _search(self, text: str) -> None:
        text = text.strip()
        if len(text) < 2:
            self.hits = []
            self.query_one(OptionList).clear_options()
            self.query_one("#search-status", Static).update("type at least 2 characters")
            return
        self.query_one("#search-status", Static).update(f"searching for {text!r}…")
        self._run_search(text)

    @work(thread=True, exclusive=True, group="search")
    def _run_search(self, text: str) -> None:
        with Reader(self.app.model.path) as reader:
            hits = reader.search(self.run_id, text, limit=300)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, text, hits)

    def _show(self, text: str, hits: list[dict[str, Any]]) -> None:
        self.searches += 1
        self.hits = [{**h, "query": text} for h in hits]
        results = self.query_one(OptionList)
        results.clear_options()
        for i, h in enumerate(self.hits):
            excerpt = " ".join((h.get("excerpt") or "").split())
            label = Text.assemble((f"{h.get('compile_id') or '-':<8}", "bold"), " ",
                                  (f"{h['kind']:<34}", "cyan"), " ")
            label.append_text(_highlight(excerpt[:140], text))
            results.add_option(Option(label, id=str(i)))
        more = " (first 300)" if len(hits) >= 300 else ""
        self.query_one("#search-status", Static).update(
            f"{len(hits)} records mention {text!r}{more} — enter opens one")

    def action_focus_results(self) -> None:
        results = self.query_one(OptionList)
        if results.option_count:
            results.focus()
            if results.highlighted is None:
                results.highlighted = 0

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(self.hits[int(event.option.id)])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def _highlight(text: str, needle: str) -> Text:
    out = Text(text)
    out.highlight_words([needle], "bold reverse", case_sensitive=False)
    return out
