"""LineList: a cursor over one-line rows, rendered lazily (only the visible rows are ever
turned into segments). The base of the compile tree and the diagnoses panel, which must stay
instant with thousands of rows; Textual's Tree and OptionList measure every row up front."""

from __future__ import annotations

from typing import Any, Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip


class LineList(ScrollView, can_focus=True):
    """Subclasses fill rows through `set_rows` with (Text or a function returning Text, data)
    pairs (a function is called only when its row is first shown); posts
    `Highlighted` when the cursor moves and `Chosen` on enter or click."""

    DEFAULT_CSS = """
    LineList { height: 1fr; background: $surface; }
    LineList > .line-list--cursor { background: $block-cursor-background; }
    LineList > .line-list--cursor-blurred { background: $block-cursor-blurred-background; }
    """

    COMPONENT_CLASSES = {"line-list--cursor", "line-list--cursor-blurred"}

    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "choose", "Open", show=False),
    ]

    class Highlighted(Message):
        def __init__(self, widget: "LineList", index: int, data: Any) -> None:
            self.widget = widget
            self.index = index
            self.data = data
            super().__init__()

        @property
        def control(self) -> "LineList":
            return self.widget

    class Chosen(Message):
        def __init__(self, widget: "LineList", index: int, data: Any) -> None:
            self.widget = widget
            self.index = index
            self.data = data
            super().__init__()

        @property
        def control(self) -> "LineList":
            return self.widget

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[tuple[Text | Callable[[], Text], Any]] = []
        self._row_cache: dict[int, Strip] = {}
        self.cursor = -1

    # -- rows -------------------------------------------------------------------------------
    def set_rows(self, rows: list[tuple[Text | Callable[[], Text], Any]],
                 cursor: int | None = None) -> None:
        self._rows = rows
        self._row_cache.clear()
        # Rows are cropped to the width, never scrolled sideways: the virtual width stays 0, so
        # that the list's first resize (its real width) asks for no second layout.
        self.virtual_size = Size(0, len(rows))
        if cursor is not None:
            self.cursor = cursor
        self.cursor = min(self.cursor, len(rows) - 1)
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def row_data(self, index: int) -> Any:
        return self._rows[index][1] if 0 <= index < len(self._rows) else None

    def row_text(self, index: int) -> Text:
        text, data = self._rows[index]
        if callable(text):
            text = text()
            self._rows[index] = (text, data)
        return text

    @property
    def current_data(self) -> Any:
        return self.row_data(self.cursor)

    # -- cursor -----------------------------------------------------------------------------
    def move_to(self, index: int, *, center: bool = False, notify: bool = True) -> None:
        if not self._rows:
            return
        index = max(0, min(index, len(self._rows) - 1))
        old = self.cursor
        self.cursor = index
        self._refresh_row(old)
        self._refresh_row(index)
        self.scroll_to_region(Region(0, index, 1, 1), animate=False, center=center,
                              immediate=True)
        if notify and old != index:
            self.post_message(self.Highlighted(self, index, self.row_data(index)))

    def action_move(self, delta: int) -> None:
        self.move_to((self.cursor if self.cursor >= 0 else -1) + delta)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, end: int) -> None:
        self.move_to(len(self._rows) - 1 if end else 0)

    def action_choose(self) -> None:
        if 0 <= self.cursor < len(self._rows):
            self.post_message(self.Chosen(self, self.cursor, self.row_data(self.cursor)))

    def on_click(self, event: Any) -> None:
        index = self.scroll_offset.y + event.y
        if 0 <= index < len(self._rows):
            if index == self.cursor and getattr(event, "chain", 1) >= 2:
                self.action_choose()
            else:
                self.move_to(index)

    def _refresh_row(self, index: int) -> None:
        if index >= 0:
            self.refresh(Region(0, index - self.scroll_offset.y, self.size.width, 1))

    def on_focus(self) -> None:
        self._refresh_row(self.cursor)

    def on_blur(self) -> None:
        self._refresh_row(self.cursor)

    def on_resize(self) -> None:
        self._row_cache.clear()     # the rows' strips are cropped to the old width

    # -- rendering --------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= len(self._rows):
            return Strip.blank(width, base)
        strip = self._row_cache.get(index)
        if strip is None:
            text = self.row_text(index)
            segments = list(text.render(self.app.console))
            strip = Strip(segments).crop_extend(0, width, None).apply_style(base)
            if len(self._row_cache) > 2000:
                self._row_cache.clear()
            self._row_cache[index] = strip
        if index == self.cursor:
            component = "line-list--cursor" if self.has_focus else "line-list--cursor-blurred"
            bg = self.get_component_rich_style(component).bgcolor
            strip = Strip(list(Segment.apply_style(strip, post_style=Style(bgcolor=bg))),
                          strip.cell_length)
        return strip
