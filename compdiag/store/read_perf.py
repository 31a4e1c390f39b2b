"""The Reader's `compdiag perf` queries: tables an older store may lack, read as empty."""

from __future__ import annotations

from typing import Any

from compdiag.store.read_base import ReaderBase, compile_id_key


class PerfReader(ReaderBase):
    def perf_graphs(self, run_id: int) -> list[dict[str, Any]]:
        """Raw eager/compiled samples per compiled graph (`compdiag perf`), by compile id."""
        if not self._has_table("perf_graphs"):
            return []
        rows = self._rows("SELECT * FROM perf_graphs WHERE run_id = ?", (run_id,))
        for row in rows:
            row["grad_enabled"] = bool(row["grad_enabled"]) if row["grad_enabled"] is not None \
                else None
        rows.sort(key=lambda r: compile_id_key(r["compile_id"]))
        return rows

    def perf_calls(self, run_id: int) -> list[dict[str, Any]]:
        """Raw samples of whole calls of compiled nn.Modules (`compdiag perf`), by target."""
        if not self._has_table("perf_calls"):
            return []
        rows = self._rows("SELECT * FROM perf_calls WHERE run_id = ? ORDER BY target",
                          (run_id,))
        for row in rows:
            row["grad_enabled"] = bool(row["grad_enabled"]) if row["grad_enabled"] is not None \
                else None
        return rows

    def perf_run(self, run_id: int) -> dict[str, Any] | None:
        """The process' peak memory and timing settings of a `compdiag perf` run."""
        if not self._has_table("perf_runs"):
            return None
        rows = self._rows("SELECT * FROM perf_runs WHERE run_id = ?", (run_id,))
        return rows[0] if rows else None

    def perf_report(self, run_id: int) -> dict[str, Any] | None:
        """The last `compdiag perf` report filed under this run (its --json document)."""
        if not self._has_table("perf_reports"):
            return None
        rows = self._rows("SELECT document FROM perf_reports WHERE run_id = ?", (run_id,))
        doc = rows[0]["document"] if rows else None
        return doc if isinstance(doc, dict) else None
