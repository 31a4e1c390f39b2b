"""JobTable: a job's ranks side by side, a column per rank; rows are each rank's counts, then one
row per divergence with every rank's fact, the ranks that differ highlighted. Enter on a
divergence row posts `DivergenceChosen` with that diagnosis."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable

from compdiag.views.job import ROWS

DIFFER = "bold black on yellow"


class JobTable(DataTable):
    """Set `document` (`compdiag explain --job --json`'s document)."""

    DEFAULT_CSS = """
    JobTable { height: 1fr; }
    """

    document: reactive[dict[str, Any] | None] = reactive(None, always_update=True)

    class DivergenceChosen(Message):
        def __init__(self, diagnosis: dict[str, Any], run_id: int) -> None:
            self.diagnosis = diagnosis
            self.run_id = run_id
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._divergences: dict[str, dict[str, Any]] = {}

    def watch_document(self, doc: dict[str, Any] | None) -> None:
        self.clear(columns=True)
        if not doc:
            return
        ranks = doc["job"]["ranks"]
        self.add_columns("", *(f"rank {r['rank']} · run {r['run']}" for r in ranks))
        for name, cell in ROWS:
            values = [cell(r) for r in ranks]
            differs = len(set(values)) > 1 and name != "compile s"
            self.add_row(Text(name, "bold" if differs else ""),
                         *(Text(v, "yellow" if differs else "") for v in values))
        self._divergences = {}
        for i, d in enumerate(x for x in doc["diagnoses"] if x["kind"] == "divergence"):
            facts = d["details"].get("facts", {})
            differ = set(d["details"].get("ranks", []))
            label = Text(f"≠ {d['details'].get('facet')}", "bold magenta")
            cells = [Text(str(facts.get(str(r["rank"]), "")),
                          DIFFER if r["rank"] in differ else "") for r in ranks]
            key = f"div{i}"
            self._divergences[key] = d
            self.add_row(label, *cells, key=key)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        d = self._divergences.get(event.row_key.value or "")
        if d is None:
            return
        runs = d["details"].get("run_ids", {})
        rank = next(iter(d["details"].get("ranks") or []), None)
        run_id = runs.get(str(rank)) if rank is not None else next(iter(runs.values()), None)
        if run_id is not None:
            self.post_message(self.DivergenceChosen(d, int(run_id)))
