"""Tables that stay readable in a narrow terminal (80 columns): a header is never cut ("sour…"),
a number never ellipsised ("57.9…"). Columns the width cannot hold are dropped, least important
first; one flexible column (argv, a function name) takes what is left and wraps; a file:line
is shortened in the middle of its path, never at its line number."""

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


def fitted_table(width: int, cols: Sequence[Col], rows: Sequence[Sequence[Any]],
                 **table_kw: Any) -> Table:
    """A rich Table of `rows` that fits `width` columns: fixed columns as wide as their widest
    cell (never wrapped or cut), dropped by `keep` while they do not fit."""
    need = [max([len(c.header)] + [_width(r[i](10**6) if c.shrink else r[i]) for r in rows])
            for i, c in enumerate(cols)]
    shown = list(range(len(cols)))

    def least(i: int) -> int:
        c = cols[i]
        return max(len(c.header), min(c.min_width, need[i])) if c.flex or c.shrink else need[i]

    def total(idx: list[int]) -> int:
        return sum(least(i) for i in idx) + _GAP * (len(idx) - 1)

    for i in sorted(shown, key=lambda i: cols[i].keep):
        if total(shown) <= width or cols[i].keep >= 100:
            break
        shown.remove(i)
    spare = max(0, width - total(shown))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, **table_kw)
    fits: dict[int, int] = {}
    for i in shown:
        c = cols[i]
        if c.shrink:
            fits[i] = min(need[i], least(i) + spare)
            spare -= fits[i] - least(i)
            table.add_column(c.header, justify=c.justify, overflow="fold", min_width=fits[i])
        elif c.flex:
            table.add_column(c.header, justify=c.justify, overflow="fold", ratio=1,
                             min_width=least(i))
        else:
            table.add_column(c.header, justify=c.justify, no_wrap=True, min_width=need[i])
    for r in rows:
        table.add_row(*(r[i](fits[i]) if i in fits else
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
