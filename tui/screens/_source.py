"""SourceScreen: the user's file at one line, with context (jump-to from a diagnosis)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Header, Static

from compdiag_tui.model import resolve_source
from compdiag_tui.screens._steady import SteadyScreen
from compdiag_tui.widgets import CodeView, KeyBar


class SourceScreen(SteadyScreen):
    DEFAULT_CSS = """
    SourceScreen .title { height: auto; padding: 0 1; background: $boost; }
    """

    BINDINGS = [("escape", "app.back", "Back")]

    def __init__(self, filename: str, lineno: int, line: str | None, *, cwd: str | None,
                 title: str = "", kept: str | None = None) -> None:
        """`kept`: the file's text as the run kept it (Reader.source_text): shown rather
        than the file, which may have changed or moved since the run."""
        super().__init__()
        self.filename = filename
        self.lineno = lineno
        self.line = line
        self.cwd = cwd
        self.reason = title
        self.kept = kept
        self.path = None if kept is not None else resolve_source(filename, cwd)

    def compose(self) -> ComposeResult:
        yield Header()
        head = Text.assemble((f"{self.filename}:{self.lineno}", "bold"))
        if self.reason:
            head.append(f"  {self.reason}", "yellow")
        if self.path is None and self.kept is None:
            head.append("  (file not found on this machine: showing the recorded line)", "dim")
        yield Static(head, classes="title")
        yield CodeView(language="python", id="source")
        yield KeyBar()

    def on_mount(self) -> None:
        view = self.query_one(CodeView)
        if self.kept is not None:
            view.code = self.kept
        elif self.path is not None:
            try:
                view.code = self.path.read_text(errors="replace")
            except OSError:
                self.path = None
        if self.path is None and self.kept is None:
            # Keep the line numbers honest: blank lines up to the recorded one.
            view.code = "\n" * (self.lineno - 1) + (self.line or "<source line not recorded>")
        view.marks = frozenset({self.lineno - 1})
        view.focus()
        view.goto_line(self.lineno - 1)
