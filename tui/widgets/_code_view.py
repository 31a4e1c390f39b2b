"""CodeView: a read-only, line-virtualised source viewer with a cursor and marked lines.

Only the visible lines are rendered (Textual's line API), so a 100 kB graph or kernel shows at
once. Each line is syntax-coloured (pygments) when first drawn, one line at a time: a
multi-line string may be coloured as code, but nothing ever highlights a whole payload, and no
thread competes with the UI for the GIL.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

# Lines longer than this are drawn plain (a minified blob would cost a lexer pass per draw).
HIGHLIGHT_LINE_LIMIT = 2_000
_LEXERS: dict[str, object] = {}
_TOKEN_STYLES: dict[object, Style] = {}


def _lexer(language: str):
    if language in ("text", ""):
        return None
    if language not in _LEXERS:
        try:
            from pygments.lexers import get_lexer_by_name
            from pygments.util import ClassNotFound
        except ImportError:          # pragma: no cover - pygments comes with rich
            return None
        try:
            _LEXERS[language] = get_lexer_by_name(language, stripnl=False, ensurenl=False)
        except ClassNotFound:
            _LEXERS[language] = None
    return _LEXERS[language]


def highlight_line(line: str, language: str) -> Text:
    """One line coloured by pygments with the monokai palette (foreground only)."""
    lexer = _lexer(language)
    if lexer is None or len(line) > HIGHLIGHT_LINE_LIMIT:
        return Text(line)
    text = Text()
    for _, token, value in lexer.get_tokens_unprocessed(line):
        style = _TOKEN_STYLES.get(token)
        if style is None:
            from rich.syntax import Syntax

            full = Syntax.get_theme("monokai").get_style_for_token(token)
            style = _TOKEN_STYLES[token] = Style(color=full.color, bold=full.bold,
                                                 italic=full.italic)
        text.append(value, style)
    return text


class CodeView(ScrollView, can_focus=True):
    """Set `code` and `language` (attributes down); `marks` are 0-based lines to emphasise."""

    DEFAULT_CSS = """
    CodeView {
        background: $surface;
        height: 1fr;
        scrollbar-gutter: stable;
    }
    CodeView > .code-view--gutter { color: $text-muted; }
    CodeView > .code-view--cursor { background: $accent 30%; }
    CodeView > .code-view--mark { background: $warning 25%; }
    CodeView > .code-view--empty { color: $text-muted; text-style: italic; }
    """

    COMPONENT_CLASSES = {"code-view--gutter", "code-view--cursor", "code-view--mark",
                         "code-view--empty"}

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "up", show=False),
        Binding("down,j", "cursor(1)", "down", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown,space", "page(1)", "page down", show=False),
        Binding("home,g", "edge(0)", "top", show=False),
        Binding("end,G", "edge(1)", "bottom", show=False),
        Binding("left", "scroll_left", "left", show=False),
        Binding("right", "scroll_right", "right", show=False),
        Binding("n", "next_match", "next match", show=False),
    ]

    code: reactive[str] = reactive("")
    language: reactive[str] = reactive("text")
    placeholder: reactive[str] = reactive("")
    cursor_line: reactive[int] = reactive(0)
    marks: reactive[frozenset[int]] = reactive(frozenset())
    match_text: reactive[str] = reactive("")

    class CursorMoved(Message):
        def __init__(self, view: "CodeView", line: int) -> None:
            self.view = view
            self.line = line
            super().__init__()

    def __init__(self, code: str = "", language: str = "text", *, placeholder: str = "",
                 name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._code_lines: list[str] = []
        self._strip_cache: dict[int, Strip] = {}
        self._cv_generation = 0
        self.set_reactive(CodeView.language, language)
        self.set_reactive(CodeView.placeholder, placeholder)
        self.code = code

    # -- data -------------------------------------------------------------------------------
    @property
    def lines(self) -> list[str]:
        return self._code_lines

    @property
    def highlighted(self) -> bool:
        """Lines are syntax-coloured as they are drawn (every language but plain text)."""
        return bool(self._code_lines) and _lexer(self.language) is not None

    def watch_code(self, code: str) -> None:
        self._cv_generation += 1
        self._code_lines = code.expandtabs(4).split("\n") if code else []
        if self._code_lines and self._code_lines[-1] == "":
            self._code_lines.pop()
        self._strip_cache.clear()
        width = max((len(line) for line in self._code_lines), default=0)
        self.virtual_size = Size(width + self._gutter_width() + 1, len(self._code_lines))
        self.cursor_line = min(self.cursor_line, max(len(self._code_lines) - 1, 0))
        if self.is_mounted:
            self.scroll_to(0, 0, animate=False)
        self.refresh()

    def watch_language(self) -> None:
        self._strip_cache.clear()
        self.refresh()

    def watch_cursor_line(self, line: int) -> None:
        self.refresh()
        self.post_message(self.CursorMoved(self, line))

    def watch_marks(self) -> None:
        self.refresh()

    # -- navigation -------------------------------------------------------------------------
    def goto_line(self, line: int, *, center: bool = True) -> None:
        """Put the cursor on a 0-based line and scroll it into view."""
        if not self._code_lines:
            return
        line = max(0, min(line, len(self._code_lines) - 1))
        self.cursor_line = line
        region = Region(0, line, 1, 1)
        self.call_after_refresh(self.scroll_to_region, region, center=center, animate=False)

    def find(self, text: str, start: int = 0) -> int | None:
        """The first line at or after `start` containing `text` (case-insensitive), wrapping."""
        if not text or not self._code_lines:
            return None
        needle = text.lower()
        n = len(self._code_lines)
        for k in range(n):
            i = (start + k) % n
            if needle in self._code_lines[i].lower():
                return i
        return None

    def watch_match_text(self, text: str) -> None:
        line = self.find(text)
        if line is not None:
            self.goto_line(line)

    def action_next_match(self) -> None:
        line = self.find(self.match_text, self.cursor_line + 1)
        if line is not None:
            self.goto_line(line)

    def action_cursor(self, delta: int) -> None:
        if not self._code_lines:
            return
        self.cursor_line = max(0, min(self.cursor_line + delta, len(self._code_lines) - 1))
        self.scroll_to_region(Region(0, self.cursor_line, 1, 1), animate=False)

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, end: int) -> None:
        self.goto_line(len(self._code_lines) - 1 if end else 0, center=False)

    # -- rendering --------------------------------------------------------------------------
    def _gutter_width(self) -> int:
        return len(str(max(len(self._code_lines), 1))) + 2

    def _content(self, index: int) -> Strip:
        strip = self._strip_cache.get(index)
        if strip is None:
            text = highlight_line(self._code_lines[index], self.language)
            strip = Strip(list(text.render(self.app.console)))
            if len(self._strip_cache) > 4000:
                self._strip_cache.clear()
            self._strip_cache[index] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not self._code_lines:
            if y == 0 and self.placeholder:
                style = base + self.get_component_rich_style("code-view--empty")
                return Strip([Segment(self.placeholder, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        index = scroll_y + y
        if index >= len(self._code_lines):
            return Strip.blank(width, base)
        gutter_w = self._gutter_width()
        gutter_style = base + self.get_component_rich_style("code-view--gutter")
        gutter = Strip([Segment(f"{index + 1:>{gutter_w - 2}}  ", gutter_style)])
        content = self._content(index).crop_extend(scroll_x, scroll_x + width - gutter_w, None)
        strip = Strip.join([gutter, content])
        strip = strip.apply_style(base)
        if index == self.cursor_line and self.has_focus:
            strip = _over(strip, self._background("code-view--cursor"))
        elif index in self.marks:
            strip = _over(strip, self._background("code-view--mark"))
        return strip

    def _background(self, component: str) -> Style:
        style = self.get_component_rich_style(component)
        return Style(bgcolor=style.bgcolor)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


def _over(strip: Strip, style: Style) -> Strip:
    """Lay `style` over every segment (a background that wins over the syntax colours)."""
    return Strip(list(Segment.apply_style(strip, post_style=style)), strip.cell_length)
