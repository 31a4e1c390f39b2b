"""RunsTable: the runs in a store, one row each; posts `RunChosen` on enter."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable

STATUS_STYLE = {"done": "green", "imported": "green", "running": "cyan", "killed": "red",
                "crashed": "bold red", "partial": "yellow"}


def format_time(ts: float | None) -> str:
    if not ts:
        return ""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts))


class RunsTable(DataTable):
    """Set `runs` (dicts with the run row and its `counts`)."""

    DEFAULT_CSS = """
    RunsTable { height: 1fr; }
    """

    runs: reactive[list[dict[str, Any]]] = reactive(list, always_update=True)

    class RunChosen(Message):
        def __init__(self, run_id: int) -> None:
            self.run_id = run_id
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def watch_runs(self, runs: list[dict[str, Any]]) -> None:
        if not self.columns:
            self.add_columns("run", "started (UTC)", "status", "exit", "compiles", "breaks",
                             "recompiles", "failures", "kernels", "program")
        self.clear()
        for run in runs:
            c = run.get("counts", {})
            self.add_row(
                str(run["id"]), format_time(run.get("started_at")),
                Text(run["status"], STATUS_STYLE.get(run["status"], "")),
                "" if run.get("exit_code") is None else str(run["exit_code"]),
                str(c.get("compiles", "")),
                Text(str(c.get("graph_breaks", "")), "yellow" if c.get("graph_breaks") else ""),
                Text(str(c.get("recompiles", "")), "magenta" if c.get("recompiles") else ""),
                Text(str(c.get("failures", "")), "bold red" if c.get("failures") else ""),
                str(c.get("kernels", "")), " ".join(run.get("argv") or [])[:70],
                key=str(run["id"]))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.RunChosen(int(event.row_key.value)))
