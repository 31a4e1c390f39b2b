"""RowsTable: a small read-only table of store rows (fusion decisions, CUDA graphs, accuracy,
perf); enter on a row posts `RowChosen` with that row."""

from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable

Column = tuple[str, Callable[[dict[str, Any]], Any]]


class RowsTable(DataTable):
    """Set `columns_spec` once, then `rows`; an empty list shows `empty_text`."""

    DEFAULT_CSS = """
    RowsTable { height: 1fr; }
    """

    rows_data: reactive[list[dict[str, Any]]] = reactive(list, always_update=True)

    class RowChosen(Message):
        def __init__(self, table: "RowsTable", row: dict[str, Any]) -> None:
            self.table = table
            self.row = row
            super().__init__()

        @property
        def control(self) -> "RowsTable":
            return self.table

    def __init__(self, columns: list[Column], *, empty_text: str = "nothing recorded",
                 id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.columns_spec = columns
        self.empty_text = empty_text

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.rows_data):
            self.post_message(self.RowChosen(self, self.rows_data[event.cursor_row]))

    def watch_rows_data(self, rows: list[dict[str, Any]]) -> None:
        self.clear(columns=True)
        self.add_columns(*(name for name, _ in self.columns_spec))
        if not rows:
            self.add_row(Text(self.empty_text, "dim italic"),
                         *([""] * (len(self.columns_spec) - 1)))
            return
        for row in rows:
            self.add_row(*(_cell(get(row)) for _, get in self.columns_spec))


def _cell(value: Any) -> Any:
    if isinstance(value, Text):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return Text("yes", "green") if value else Text("no", "red")
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)
