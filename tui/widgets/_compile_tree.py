"""CompileTree: a run's frames and their compile ids, coloured by what happened to each
(ok / graph break / failed / recompile), like tlparse's stack trie. Rows are drawn only when
visible, so a run with thousands of compile ids opens at once."""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive

from compdiag.formats.words import plural
from compdiag_tui.model import (STATUS_NOUN, STATUS_STYLE, STATUS_WORD, CompileInfo,
                                  FrameInfo)
from compdiag_tui.widgets._line_list import LineList


def compile_label(c: CompileInfo, last: bool) -> Text:
    status = c.display_status
    style = STATUS_STYLE[status]
    label = Text.assemble((" └─ " if last else " ├─ ", "dim"),
                          (f"{c.compile_id:<9}", "bold"), (f"{STATUS_WORD[status]:<12}", style))
    total = c.stage_times.get("total")
    label.append(f"{total:7.2f}s" if total is not None else " " * 8, "dim")
    if c.graph_breaks and status != "graph_break":
        label.append("  graph break", STATUS_STYLE["graph_break"])
    if c.recompile:
        label.append(f"  ↻ {c.recompile[:90]}", STATUS_STYLE["recompile"])
    if c.failure:
        label.append(f"  {c.failure[:90]}", STATUS_STYLE["failed"])
    return label


def frame_label(f: FrameInfo, expanded: bool) -> Text:
    where = f"{f.filename}:{f.lineno}" if f.filename else "?"
    label = Text.assemble(("▼ " if expanded else "▶ ", "bold"), ("frame ", "dim"),
                          (f"{f.frame if f.frame is not None else '?'} ", "bold"),
                          (f.co_name or "?", "bold cyan"), "  ", (where, "dim"), "  ")
    label.append(plural(len(f.compiles), "compile"), "dim")
    for status in ("failed", "graph_break", "recompile"):
        n = f.count(status)
        if n:
            label.append(f"  {plural(n, STATUS_NOUN[status])}", STATUS_STYLE[status])
    return label


class CompileTree(LineList):
    """Set `frames`; posts `CompileHighlighted` as the cursor moves and `CompileChosen` on
    enter. Enter / space / left / right fold and unfold a frame."""

    DEFAULT_CSS = """
    CompileTree { height: 1fr; }
    """

    BINDINGS = [
        Binding("space", "toggle", "Fold", show=False),
        Binding("left", "fold", "Fold", show=False),
        Binding("right", "unfold", "Unfold", show=False),
    ]

    frames: reactive[list[FrameInfo]] = reactive(list, always_update=True)

    class CompileHighlighted(Message):
        def __init__(self, compile_id: str | None) -> None:
            self.compile_id = compile_id
            super().__init__()

    class CompileChosen(Message):
        def __init__(self, compile_id: str) -> None:
            self.compile_id = compile_id
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.collapsed: set[int] = set()

    def watch_frames(self, frames: list[FrameInfo]) -> None:
        self.collapsed = set()
        self._rebuild(cursor=0)
        first = next((i for i in range(self.row_count)
                      if isinstance(self.row_data(i), str)), None)
        if first is not None:
            self.call_after_refresh(self.move_to, first, notify=False)
            self.cursor = first
            self.post_message(self.CompileHighlighted(self.row_data(first)))

    def _rebuild(self, cursor: int | None = None) -> None:
        rows = []
        for fi, f in enumerate(self.frames):
            expanded = fi not in self.collapsed
            rows.append((partial(frame_label, f, expanded), ("frame", fi)))
            if expanded:
                n = len(f.compiles)
                rows += [(partial(compile_label, c, k == n - 1), c.compile_id)
                         for k, c in enumerate(f.compiles)]
        self.set_rows(rows, cursor)

    # -- folding ----------------------------------------------------------------------------
    def _frame_at(self, index: int) -> int | None:
        for i in range(index, -1, -1):
            data = self.row_data(i)
            if isinstance(data, tuple):
                return data[1]
        return None

    def _frame_row(self, frame_index: int) -> int:
        for i in range(self.row_count):
            if self.row_data(i) == ("frame", frame_index):
                return i
        return 0

    def _set_folded(self, frame_index: int, folded: bool) -> None:
        if folded == (frame_index in self.collapsed):
            return
        (self.collapsed.add if folded else self.collapsed.discard)(frame_index)
        self._rebuild()
        self.move_to(self._frame_row(frame_index), notify=False)

    def action_toggle(self) -> None:
        fi = self._frame_at(self.cursor)
        if fi is not None:
            self._set_folded(fi, fi not in self.collapsed)

    def action_fold(self) -> None:
        fi = self._frame_at(self.cursor)
        if fi is not None:
            self._set_folded(fi, True)

    def action_unfold(self) -> None:
        fi = self._frame_at(self.cursor)
        if fi is not None:
            self._set_folded(fi, False)

    def action_choose(self) -> None:
        data = self.current_data
        if isinstance(data, tuple):
            self.action_toggle()
        elif data is not None:
            self.post_message(self.CompileChosen(data))

    # -- selection --------------------------------------------------------------------------
    def select_compile(self, compile_id: str) -> bool:
        for fi, f in enumerate(self.frames):
            if any(c.compile_id == compile_id for c in f.compiles):
                self._set_folded(fi, False)
                break
        for i in range(self.row_count):
            if self.row_data(i) == compile_id:
                self.move_to(i, center=True)
                return True
        return False

    @property
    def compile_ids(self) -> list[str]:
        return [c.compile_id for f in self.frames for c in f.compiles]

    @property
    def current_compile(self) -> str | None:
        data = self.current_data
        return data if isinstance(data, str) else None

    def on_line_list_highlighted(self, event: LineList.Highlighted) -> None:
        if event.widget is not self:
            return
        event.stop()
        data = event.data
        self.post_message(self.CompileHighlighted(data if isinstance(data, str) else None))

    def on_line_list_chosen(self, event: LineList.Chosen) -> None:
        if event.widget is self:
            event.stop()

