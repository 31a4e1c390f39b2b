"""The Reader's foundation: the connection, the row helpers every query uses (a damaged
store is a StoreError, JSON columns decoded), and what a store of an older layout lacks. The
query methods are in reader.py, read_records.py (raw records) and read_perf.py."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, TypeVar

from compdiag.formats.command_line import command_line
from compdiag.formats.compile_id import sort_key
from compdiag.store import blobs
from compdiag.store.schema import StoreError, connect

_JSON_COLUMNS = {"argv", "stage_times", "metrics", "hints", "fx_nodes", "fused_ops",
                 "user_lines", "metadata", "shape", "stride", "eager_s", "compiled_s",
                 "settings", "document", "user_stack", "frames", "origins", "sizes", "symints",
                 "sources", "objects", "args", "param_names", "nodes", "constraint_sources",
                 "constraint_frames", "ops", "call", "kernel_frames", "stack", "lib_frame",
                 "torch_frames", "number_outputs", "raise_site", "failed_guards", "handling"}

_R = TypeVar("_R", bound="ReaderBase")


class ReaderBase:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.conn = connect(self.path, create=False)
        try:  # a store written before blobs (store/blobs.py) keeps every text inline
            has = {t: blobs.has_blobs(self.conn, t) for t in blobs.BLOB_COLUMNS}
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise StoreError(f"{self.path}: cannot read the store ({exc})") from None
        # records whose envelope's has_payload is left out (store/blobs.py: HASH_FLAG)
        self._hashes = has["records"] and blobs.has_column(self.conn, "records",
                                                           blobs.HASH_FLAG)
        self._metadata = blobs.text_sql("records", "metadata", blobs=has["records"],
                                        hashes=self._hashes)
        self._metadata_stored = blobs.text_sql("records", "metadata", blobs=has["records"])
        self._payload = blobs.text_sql("records", "payload", blobs=has["records"])
        self._metrics = blobs.text_sql("compiles", "metrics", blobs=has["compiles"])
        self._kernel = {c: f"{blobs.text_sql('kernels', c, blobs=has['kernels'])} AS {c}"
                        for c in blobs.BLOB_COLUMNS["kernels"]}
        self._frames = blobs.text_sql("sched_nodes", "frames", blobs=has["sched_nodes"])
        self._stack = blobs.text_sql("compile_stacks", "frames", blobs=has["compile_stacks"])
        self._cache_keys = blobs.text_sql("cache_keys", "components", blobs=has["cache_keys"])

    @property
    def _runs_cmd(self) -> str:
        """`compdiag runs` for this store, as an error's next step prints it."""
        return command_line("runs", store=self.path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self: _R) -> _R:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers ----------------------------------------------------------------------------
    def _rows(self, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
        try:
            rows = self.conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the store ({exc})") from None
        return [_decode(dict(row)) for row in rows]

    def _scalar(self, sql: str, params: tuple = ()) -> Any:
        """The first column of the first row, or None; a damaged store is a StoreError."""
        try:
            row = self.conn.execute(sql, params).fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the store ({exc})") from None
        return None if row is None else row[0]

    def _has_table(self, name: str) -> bool:
        return bool(self._scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND"
                                 " name = ?", (name,)))

    def _has_column(self, table: str, column: str) -> bool:
        """A column of this layout that a schema-3 store written before it lacks (read-only
        here: the next write upgrades the store)."""
        cache = self.__dict__.setdefault("_columns", {})
        if table not in cache:
            cache[table] = {row["name"] for row in self._rows(f"PRAGMA table_info({table})")}
        return column in cache[table]


# Sorts compile ids in compile order (formats/compile_id.py, the one place that reads them).
compile_id_key = sort_key


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    for key in _JSON_COLUMNS.intersection(row):
        value = row[key]
        if isinstance(value, str):
            try:
                row[key] = json.loads(value)
            except ValueError:
                pass
    for key in ("fused", "applied", "ok", "hit", "frame_skipped"):
        if key in row and row[key] is not None:
            row[key] = bool(row[key])
    return row
