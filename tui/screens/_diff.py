"""DiffScreen: what two runs did differently (`compdiag diff RUN_A RUN_B`), opened from the runs
list: space marks a run, d compares the highlighted run with it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Header, Static

from compdiag.views.diff import STYLES
from compdiag_tui.screens._steady import SteadyScreen
from compdiag_tui.widgets import KeyBar


class DiffScreen(SteadyScreen):
    DEFAULT_CSS = """
    DiffScreen .title { height: 1; padding: 0 1; background: $boost; }
    DiffScreen #diff-body { padding: 0 1; }
    """

    BINDINGS = [("escape", "app.back", "Back")]

    def __init__(self, run_a: int, run_b: int) -> None:
        super().__init__()
        self.run_a = run_a
        self.run_b = run_b
        self.lines: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"run {self.run_a} vs run {self.run_b}:  - only in {self.run_a}   "
                     f"+ only in {self.run_b}   ~ different count or winner", classes="title")
        with VerticalScroll():
            yield Static(id="diff-body")
        yield KeyBar()

    def on_mount(self) -> None:
        self.lines = self.app.model.diff(self.run_a, self.run_b)
        text = Text()
        for kind, line in self.lines:
            text.append(line + "\n", STYLES.get(kind, ""))
        self.query_one("#diff-body", Static).update(text)
        self.query_one(VerticalScroll).focus()
