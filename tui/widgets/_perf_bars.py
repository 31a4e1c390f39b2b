"""PerfBars: eager vs compiled time per call of each timed graph, on one scale, one line per
graph: the upper half of the line is the eager bar, the lower half the compiled one."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from compdiag_tui.perf_format import VERDICT_STYLE, fmt_time, median, ratio_text

EAGER = "cyan"


def twin_bar(eager: float, compiled: float, top: float, width: int, colour: str) -> Text:
    """Two bars in one line of half blocks: eager on top, compiled below."""
    def cells(v: float) -> int:
        return max(1, round(v / top * width)) if top > 0 and v > 0 else 0

    e, c = cells(eager), cells(compiled)
    text = Text()
    for i in range(max(e, c)):
        if i < e and i < c:
            text.append("▀", Style(color=EAGER, bgcolor=colour))
        elif i < e:
            text.append("▀", Style(color=EAGER))
        else:
            text.append("▄", Style(color=colour))
    return text


class PerfBars(Static):
    """Set `graphs` (the report's `graphs`); graphs without both timings are left out."""

    DEFAULT_CSS = """
    PerfBars { height: auto; padding: 0 1; }
    """

    graphs: reactive[list[dict[str, Any]]] = reactive(list, always_update=True)

    def watch_graphs(self) -> None:
        self.update(self.render_bars())

    def on_resize(self) -> None:
        self.update(self.render_bars())

    def timed(self) -> list[dict[str, Any]]:
        return [g for g in self.graphs or [] if median(g.get("eager")) is not None
                and median(g.get("compiled")) is not None]

    def render_bars(self) -> Table | Text:
        timed = self.timed()
        if not timed:
            return Text("no graph has both an eager and a compiled timing", "dim italic")
        top = max(max(median(g["eager"]), median(g["compiled"])) for g in timed) or 1.0
        width = max(10, min(50, (self.size.width or 100) - 50))
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right", style="bold")
        table.add_column(width=width)
        table.add_column(justify="right")
        table.add_column(justify="right")
        table.add_column(justify="right")
        for g in timed:
            verdict = (g.get("speedup") or {}).get("verdict") or ""
            colour = VERDICT_STYLE.get(verdict, "").replace("bold ", "") or "white"
            e, c = median(g["eager"]), median(g["compiled"])
            table.add_row(str(g.get("compile_id")), twin_bar(e, c, top, width, colour),
                          Text(fmt_time(e), EAGER), Text(fmt_time(c), colour),
                          ratio_text(g.get("speedup")))
        table.add_row("", Text.assemble(("▀ eager", EAGER), ("  ▄ compiled", "dim"),
                                        (" (coloured by verdict)", "dim")), "", "", "")
        return table
