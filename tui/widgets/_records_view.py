"""RecordsView: every raw structured-trace record kind of a compile id (unknown kinds too),
with the selected kind's envelopes and payloads."""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from compdiag_tui.widgets._code_view import CodeView

# A kind with many records (chromium_event) shows at most this many.
MAX_RECORDS = 200


class RecordsView(Horizontal):
    """Set `kinds` ({kind: count}); `loader(kind)` yields that kind's records on selection."""

    DEFAULT_CSS = """
    RecordsView { height: 1fr; }
    RecordsView > OptionList { width: 44; height: 1fr; }
    """

    kinds: reactive[dict[str, int]] = reactive(dict, always_update=True)

    def __init__(self, loader: Callable[[str], Iterable[dict[str, Any]]], *,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.loader = loader

    def compose(self) -> ComposeResult:
        yield OptionList()
        yield CodeView(placeholder="no records for this compile id")

    def _options(self) -> OptionList | None:
        try:
            return self.query_one(OptionList)
        except NoMatches:   # not composed yet: on_mount fills it
            return None

    @property
    def code_view(self) -> CodeView:
        return self.query_one(CodeView)

    def on_mount(self) -> None:
        self.watch_kinds(self.kinds)

    def watch_kinds(self, kinds: dict[str, int]) -> None:
        options = self._options()
        if options is None:
            return
        options.clear_options()
        for kind, n in kinds.items():
            options.add_option(Option(Text.assemble(kind, (f"  {n}", "dim")), id=kind))
        if kinds:
            options.highlighted = 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None:
            self.show(event.option.id)

    def select(self, kind: str) -> bool:
        options = self.query_one(OptionList)
        try:
            options.highlighted = options.get_option_index(kind)
        except Exception:  # noqa: BLE001 - OptionDoesNotExist across Textual versions
            return False
        self.show(kind)
        return True

    def show(self, kind: str) -> None:
        chunks = []
        for i, rec in enumerate(self.loader(kind)):
            if i >= MAX_RECORDS:
                chunks.append(f"# ... more {kind} records not shown")
                break
            chunks.append(f"# record seq {rec.get('seq')}  {kind}")
            chunks.append(json.dumps(rec.get("metadata"), indent=1, default=repr))
            if rec.get("payload"):
                chunks.append(rec["payload"])
            chunks.append("")
        view = self.code_view
        view.language = "text"
        view.code = "\n".join(chunks)
