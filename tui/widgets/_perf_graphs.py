"""PerfGraphs: `compdiag perf`'s per-graph table (eager vs compiled, speed-up with its 95%
interval, verdict, compile time, payback); enter on a row posts `RowsTable.RowChosen`."""

from __future__ import annotations

from rich.text import Text

from compdiag_tui.perf_format import (ci_text, fmt_time, median, payback_text, ratio_text,
                                      short_function, verdict_text)
from compdiag_tui.widgets._rows_table import RowsTable

COLUMNS = [
    ("graph", lambda g: Text(str(g.get("compile_id")), "bold")),
    ("function", lambda g: short_function(g.get("function"))),
    ("calls", lambda g: g.get("calls")),
    ("eager", lambda g: fmt_time(median(g.get("eager")))),
    ("compiled", lambda g: fmt_time(median(g.get("compiled")))),
    ("speed-up", lambda g: ratio_text(g.get("speedup"))),
    ("95% CI", lambda g: ci_text((g.get("speedup") or {}).get("lo"),
                                 (g.get("speedup") or {}).get("hi"))),
    ("verdict", lambda g: verdict_text(g.get("speedup"))),
    ("compile", lambda g: fmt_time(g.get("compile_s"))),
    ("payback", payback_text),
]


class PerfGraphs(RowsTable):
    """Set `rows_data` to the report's `graphs`."""

    DEFAULT_CSS = """
    PerfGraphs { height: auto; max-height: 16; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(COLUMNS, empty_text="no compiled graph was timed", id=id)
