"""ArtifactView: one stage's text artifacts (e.g. original / transformed / decompiled bytecode)
as a strip of small tabs over one CodeView; a payload is fetched only when its tab is shown.
`v` cycles the views."""

from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive

from compdiag_tui.widgets._code_view import CodeView
from compdiag_tui.widgets._tab_strip import TabStrip

View = tuple[str, tuple[str, ...], str]       # label, record kinds tried in order, lexer
Loader = Callable[[tuple[str, ...]], "str | None"]


class ArtifactView(Vertical):
    """`loader` (kinds -> payload) and `views` are given at construction."""

    DEFAULT_CSS = """
    ArtifactView { height: 1fr; }
    """

    BINDINGS = [Binding("v", "cycle", "Next view")]

    active_view: reactive[str] = reactive("")

    def __init__(self, views: list[View], loader: Loader, *, available: set[str] | None = None,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.views = views
        self.loader = loader
        self.available = available
        self._loaded: dict[str, str | None] = {}

    def compose(self) -> ComposeResult:
        tabs = []
        for i, (label, kinds, _) in enumerate(self.views):
            present = self.available is None or any(k in self.available for k in kinds)
            tabs.append((f"view-{i}", label, present))
        yield TabStrip(tabs)
        yield CodeView(placeholder="not recorded for this compile id")

    def on_mount(self) -> None:
        if self.active_view:            # a search hit chose the view already
            return
        # Open the first view that has a record, else the first.
        strip = self.query_one(TabStrip)
        first = next((i for i, t in enumerate(strip.tabs) if t[2]), 0)
        self.show(first)

    @property
    def code_view(self) -> CodeView:
        return self.query_one(CodeView)

    def on_tab_strip_activated(self, event: TabStrip.Activated) -> None:
        event.stop()
        self.show(int(event.tab_id.split("-")[1]))

    def action_cycle(self) -> None:
        i = next((k for k, v in enumerate(self.views) if v[0] == self.active_view), -1)
        self.show((i + 1) % len(self.views))

    def show(self, index: int) -> None:
        label, kinds, language = self.views[index]
        self.active_view = label
        self.query_one(TabStrip).active = f"view-{index}"
        if label not in self._loaded:
            self._loaded[label] = self.loader(kinds)
        view = self.code_view
        view.placeholder = f"no {' / '.join(kinds)} record for this compile id"
        view.language = language
        view.code = self._loaded[label] or ""

    def select(self, kind: str) -> bool:
        """Show the view that holds a record kind (a search hit)."""
        for i, (_, kinds, _) in enumerate(self.views):
            if kind in kinds:
                self.show(i)
                return True
        return False
