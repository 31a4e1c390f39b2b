"""Tables that stay readable in a narrow terminal (80 columns): a header is never cut ("sour…"),
a number never ellipsised ("57.9…"), a file or function name never broken across lines
(`fail_lowering.` / `py`, issue 30). Columns the width cannot hold are dropped, least important
first; a flexible column (argv, a function name) wraps between words and shortens a word too
long for it in the middle; a file:line is shortened in the middle of its path, never in its
file name or line number; room left over is used, names first."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Sequence

from rich import box
from rich.table import Table
from rich.text import Text

_GAP = 3  # box.SIMPLE_HEAD without edges: a cell's padding on each side and the separator


@dataclass(frozen=True)
class Col:
    """A column: `keep` ranks it (higher is dropped later; 100: never dropped); `flex` marks
    one that shrinks and wraps (at least `min_width` wide); `shrink` one whose cells are
    callables `cell(width) -> str` that shorten themselves to the width left (a file:line)."""

    header: str
    keep: int = 100
    justify: str = "left"
    flex: bool = False
    min_width: int = 12
    shrink: bool = False


def _width(cell: Any) -> int:
    text = cell.plain if isinstance(cell, Text) else str(cell)
    return max((len(line) for line in text.splitlines()), default=0)


def _longest_word(cell: Any) -> int:
    text = cell.plain if isinstance(cell, Text) else str(cell)
    return max((len(w) for w in text.split()), default=0)


def middle(word: str, width: int) -> str:
    """`word` in at most `width` characters, its middle replaced by '…' (both ends kept: a
    function's name and where it resumes, `torch_dynamo_r…_in_f_at_7`)."""
    if len(word) <= width:
        return word
    if width <= 1:
        return "…"[:width]
    head = (width - 1 + 1) // 2
    tail = width - 1 - head
    return word[:head] + "…" + (word[-tail:] if tail else "")


def _fit_words(cell: Any, width: int) -> Any:
    """A flexible cell whose every word fits `width`, so it wraps between words only."""
    if isinstance(cell, Text) or _longest_word(cell) <= width:
        return cell if isinstance(cell, Text) else str(cell)
    return "\n".join(" ".join(middle(w, width) for w in line.split(" "))
                     for line in str(cell).splitlines())


def fitted_table(width: int, cols: Sequence[Col], rows: Sequence[Sequence[Any]],
                 **table_kw: Any) -> Table:
    """A rich Table of `rows` that fits `width` columns: fixed columns as wide as their widest
    cell (never wrapped or cut), dropped by `keep` while they do not fit. A shrinking column
    (a file:line) is never narrower than its shortest form (the file name and line whole); a
    flexible one wraps between words, a word longer than its width shortened in the middle
    (never broken across lines). Room left over goes first to the flexible columns' words,
    then to the shrinking columns, then to the flexible columns' whole text."""
    need = [max([len(c.header)] + [_width(r[i](10**6) if c.shrink else r[i]) for r in rows])
            for i, c in enumerate(cols)]
    # a shrinking cell at its shortest (a file name and line, argv's words) may still wrap
    # between its words
    shortest = [max([len(c.header)] + [_longest_word(r[i](1)) for r in rows]) if c.shrink
                else 0 for i, c in enumerate(cols)]
    words = [max([len(c.header)] + [_longest_word(r[i]) for r in rows]) if c.flex else 0
             for i, c in enumerate(cols)]
    shown = list(range(len(cols)))

    def least(i: int) -> int:
        c = cols[i]
        if c.shrink:
            return shortest[i]
        if c.flex:
            return max(len(c.header), min(c.min_width, words[i]))
        return need[i]

    def total(idx: list[int]) -> int:
        return sum(least(i) for i in idx) + _GAP * (len(idx) - 1)

    for i in sorted(shown, key=lambda i: cols[i].keep):
        if total(shown) <= width or cols[i].keep >= 100:
            break
        shown.remove(i)
    widths = {i: least(i) for i in shown}
    spare = max(0, width - total(shown))
    for goal in ("words", "shrink", "flex"):  # the room, in that order
        for i in shown:
            c = cols[i]
            if goal == "words" and c.flex:
                want = words[i]
            elif goal == "shrink" and c.shrink:
                want = need[i]
            elif goal == "flex" and c.flex:
                want = need[i]
            else:
                continue
            more = min(spare, max(0, want - widths[i]))
            widths[i] += more
            spare -= more
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, **table_kw)
    for i in shown:
        c = cols[i]
        if c.shrink or c.flex:
            table.add_column(c.header, justify=c.justify, overflow="fold", width=widths[i])
        else:
            table.add_column(c.header, justify=c.justify, no_wrap=True, min_width=need[i])
    for r in rows:
        table.add_row(*(_fit_words(r[i](widths[i]), widths[i]) if cols[i].shrink else
                        _fit_words(r[i], widths[i]) if cols[i].flex else
                        r[i] if isinstance(r[i], Text) else str(r[i]) for i in shown))
    return table


def short_path(path: str | None, lineno: int | None, width: int) -> str:
    """`path:lineno` in at most `width` characters where it can be: relative to the current
    directory when under it, then its middle directories replaced by '…'; the file name and
    line number are always whole."""
    if not path:
        return "-"
    try:
        rel = os.path.relpath(path)
        if not rel.startswith(".."):
            path = rel
    except ValueError:
        pass
    tail = f":{lineno}" if lineno is not None else ""
    text = path + tail
    if len(text) <= width:
        return text
    parts = path.split(os.sep)
    if len("…" + os.sep + parts[-1] + tail) > width:
        return parts[-1] + tail
    keep = [parts[-1]]
    for part in reversed(parts[:-1]):
        if len(os.sep.join(["…", part, *keep])) + len(tail) > width:
            break
        keep.insert(0, part)
    return "…" + os.sep + os.sep.join(keep) + tail
