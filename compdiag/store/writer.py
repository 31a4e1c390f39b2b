"""The one write path into a store.

Rows are queued and committed in small transactions (at most every `flush_interval` seconds,
also from a timer thread while the program idles), so a SIGKILLed program loses at most the
last fraction of a second of capture.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from compdiag.store import blobs
from compdiag.store.schema import connect


class Writer:
    def __init__(self, path: Path | str, *, flush_interval: float = 0.2,
                 background: bool = False) -> None:
        self.path = Path(path)
        self.conn = connect(self.path, create=True)
        self.flush_interval = flush_interval
        self._pending: list[tuple[str, tuple]] = []
        self._blobs_seen: set[str] = set()
        # (column, record kind) -> the (hash, text) deltas of that kind are taken against
        self._bases: dict[tuple[str, Any], tuple[str, str]] = {}
        self._lock = threading.RLock()
        self._last_flush = time.monotonic()
        self._closed = False
        self._timer: threading.Thread | None = None
        # called by the timer thread before each of its flushes (capture's backlog)
        self.on_tick: Any = None
        if background:
            self._timer = threading.Thread(target=self._tick, name="compdiag-flush", daemon=True)
            self._timer.start()

    # -- runs -------------------------------------------------------------------------------
    def begin_run(self, *, source: str, argv: list[str], cwd: str | None = None,
                  torch_version: str | None = None, device: str | None = None,
                  mode: str | None = None, pid: int | None = None,
                  started_at: float | None = None, status: str = "running") -> int:
        with self._lock:
            self.flush()
            cur = self.conn.execute(
                "INSERT INTO runs (source, argv, cwd, started_at, status, torch_version, device,"
                " mode, pid) VALUES (?,?,?,?,?,?,?,?,?)",
                tuple(map(_cell, (source, argv, cwd, started_at or time.time(), status,
                                  torch_version, device, mode, pid))),
            )
            return int(cur.lastrowid)

    def update_run(self, run_id: int, **cols: Any) -> None:
        if not cols:
            return
        sets = ", ".join(f"{k} = ?" for k in cols)
        self._queue(f"UPDATE runs SET {sets} WHERE id = ?",
                    (*map(_cell, cols.values()), run_id))

    def end_run(self, run_id: int, *, exit_code: int | None, status: str) -> None:
        with self._lock:
            self.update_run(run_id, exit_code=exit_code, status=status, ended_at=time.time())
            self.flush()

    def delete_run(self, run_id: int) -> None:
        """Remove a run and every row of it, in one transaction (an import that read nothing
        or was interrupted leaves no run behind)."""
        from compdiag.store.schema import DERIVED_TABLES

        with self._lock:
            self.flush()
            self.conn.execute("BEGIN")
            try:
                for table in DERIVED_TABLES:
                    self.conn.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
                self.conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
                # the id is free again: the next run is numbered as if this one never was
                # (a failed import does not use up run ids), never below a run still stored
                self.conn.execute("UPDATE sqlite_sequence SET seq = (SELECT coalesce(max(id), 0)"
                                  " FROM runs) WHERE name = 'runs'")
                blobs.drop_unused(self.conn)
                self._blobs_seen.clear()
                self._bases.clear()
                self.conn.execute("COMMIT")
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise

    def end_job_process(self, job: str, pid: int, *, exit_code: int, status: str) -> int:
        """A launcher saw one of its workers exit: the exit status of the job's run with that
        pid (the worker could not write its own after a SIGKILL). Returns the rows updated."""
        with self._lock:
            self.flush()
            cur = self.conn.execute(
                "UPDATE runs SET exit_code = ?, status = ?, ended_at = coalesce(ended_at, ?)"
                " WHERE job = ? AND pid = ? AND rank IS NOT NULL",
                (exit_code, status, time.time(), job, pid))
            return cur.rowcount

    def warn(self, run_id: int, message: str) -> None:
        self.insert("warnings", run_id=run_id, message=message)

    # -- rows -------------------------------------------------------------------------------
    def insert(self, table: str, **cols: Any) -> None:
        if table in blobs.BLOB_COLUMNS:
            cols = self._to_blobs(table, cols)
        self._queue(_sql("INSERT", table, tuple(cols)), _cells(cols.values()))

    def insert_rows(self, table: str, names: tuple[str, ...], rows: list[tuple]) -> None:
        """Many rows of one table and columns at once (a cache lookup's hundreds of key
        components): one statement, one lock and one flush check for all of them, and no
        conversion for the ASCII texts and ints that make up nearly every cell. Not for the
        tables whose texts go to blobs."""
        if table in blobs.BLOB_COLUMNS:
            raise ValueError(f"{table} keeps texts in blobs: insert its rows one by one")
        if not rows:
            return
        sql = _sql("INSERT", table, names)
        cells = [tuple(v if (type(v) is str and v.isascii()) or type(v) is int and v in _INT64
                       else _cell(v) for v in row) for row in rows]
        with self._lock:
            self._pending.extend((sql, params) for params in cells)
            if time.monotonic() - self._last_flush >= self.flush_interval:
                self.flush()

    def upsert(self, table: str, **cols: Any) -> None:
        if table in blobs.BLOB_COLUMNS:
            cols = self._to_blobs(table, cols)
        self._queue(_sql("INSERT OR REPLACE", table, tuple(cols)), _cells(cols.values()))

    def _to_blobs(self, table: str, cols: dict[str, Any]) -> dict[str, Any]:
        """A large text goes to `blobs` once, a small one is compressed in its row
        (store/blobs.py). A text this writer has stored already costs a hash, not a
        compression. A record's envelope loses the has_payload its payload gives back."""
        if table == "records":
            cols = _strip_payload_md5(cols)
        for col, blob_col in blobs.BLOB_COLUMNS[table].items():
            value = cols.get(col)
            if value is None:
                continue
            text = _cell(value)
            if not isinstance(text, str) or len(text) < blobs.MIN_PACK:
                continue
            if len(text) < blobs.MIN_BLOB:
                ref: str | bytes | None = blobs.pack(text)
                if ref is None:
                    continue
            else:
                ref = blobs.key(text)
                if ref not in self._blobs_seen:
                    self._blobs_seen.add(ref)
                    # The first text of its kind is the base later ones are deltas against
                    # (a compile's metrics: its compilation_metrics envelope's).
                    kind = ("records", "metadata", "compilation_metrics") \
                        if table == "compiles" else \
                        (table, col, _BASE_KIND.get(cols.get("kind"), cols.get("kind")))
                    base = self._bases.get(kind)
                    size, codec, data, delta = blobs.encode(text, base and base[1])
                    self._queue(blobs.INSERT_SQL,
                                (ref, size, codec, data, base[0] if delta and base else None))
                    if base is None and self._may_be_base(ref):
                        self._bases[kind] = (ref, text)
            cols = {**cols, col: blobs.NOT_NULL_EMPTY.get((table, col)), blob_col: ref}
        return cols

    def update(self, table: str, where: dict[str, Any], **cols: Any) -> None:
        """UPDATE table SET cols WHERE every `where` column equals its value."""
        sets = ", ".join(f"{k} = ?" for k in cols)
        cond = " AND ".join(f"{k} = ?" for k in where)
        self._queue(f"UPDATE {table} SET {sets} WHERE {cond}",
                    tuple(map(_cell, (*cols.values(), *where.values()))))

    def add_to_run(self, run_id: int, column: str, seconds: float) -> None:
        """Add to a run's figure where it has one (a NULL stays NULL: nothing was counted)."""
        self._queue(f"UPDATE runs SET {column} = {column} + ? WHERE id = ? AND {column} IS NOT "
                    "NULL", (seconds, run_id))

    def _may_be_base(self, ref: str) -> bool:
        """A blob can be a base unless the store already has it as a delta (another run)."""
        with self._lock:
            row = self.conn.execute("SELECT codec FROM blobs WHERE hash = ?", (ref,)).fetchone()
        return row is None or row[0] not in blobs.DELTAS

    def _queue(self, sql: str, params: tuple) -> None:
        with self._lock:
            self._pending.append((sql, params))
            if time.monotonic() - self._last_flush >= self.flush_interval:
                self.flush()

    def flush(self) -> None:
        with self._lock:
            self._last_flush = time.monotonic()
            if not self._pending or self._closed:
                return
            batch, self._pending = self._pending, []
            try:
                self.conn.execute("BEGIN")
                # Runs of the same statement go through executemany (one prepared statement,
                # one call); the order of the rows is the order they were queued in.
                i, n = 0, len(batch)
                while i < n:
                    sql = batch[i][0]
                    j = i + 1
                    while j < n and batch[j][0] is sql:
                        j += 1
                    if j - i == 1:
                        self.conn.execute(sql, batch[i][1])
                    else:
                        self.conn.executemany(sql, [params for _, params in batch[i:j]])
                    i = j
                self.conn.execute("COMMIT")
            except Exception:  # noqa: BLE001 - never leave the connection mid-transaction
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise

    def _tick(self) -> None:
        while not self._closed:
            time.sleep(self.flush_interval)
            try:
                if self.on_tick is not None:
                    self.on_tick()
                self.flush()
            except Exception:  # noqa: BLE001 - the timer must never kill the program
                pass

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self.flush()
            self._closed = True
            self.conn.close()


def _strip_payload_md5(cols: dict[str, Any]) -> dict[str, Any]:
    """A record's columns with the envelope's has_payload left out where it is the md5 of the
    payload as stored (store/blobs.py puts it back on read)."""
    # The flag's column is always there: rows with and without it share one statement.
    flagged = {**cols, blobs.HASH_FLAG: None}
    metadata, payload = cols.get("metadata"), cols.get("payload")
    if metadata is None or payload is None:
        return flagged
    metadata, payload = _cell(metadata), _cell(payload)
    if not isinstance(metadata, str) or not isinstance(payload, str):
        return flagged
    stripped = blobs.strip_payload_md5(metadata, payload)
    if stripped is None:
        return flagged
    return {**flagged, "metadata": stripped, "payload": payload, blobs.HASH_FLAG: 1}


# Record kinds whose texts are deltas against another kind's first (the backward's metrics
# carry the same inductor config as the forward's).
_BASE_KIND = {"bwd_compilation_metrics": "compilation_metrics"}
_INT64 = range(-(1 << 63), 1 << 63)
_SQL: dict[tuple[str, str, tuple[str, ...]], str] = {}


def _sql(verb: str, table: str, names: tuple[str, ...]) -> str:
    """The statement for one (verb, table, columns), built once and shared (flush groups
    rows by the identity of this string)."""
    key = (verb, table, names)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = (f"{verb} INTO {table} ({', '.join(names)}) "
                           f"VALUES ({', '.join('?' for _ in names)})")
    return sql


def _cells(values: Any) -> tuple:
    """_cell of each value, the values that bind as they are (ASCII text, ints in range,
    None, floats, bytes: nearly every cell of an import) without a call each."""
    return tuple([v if ((c := type(v)) is str and v.isascii()) or v is None or c is float
                  or c is bytes or (c is int and v in _INT64) else _cell(v) for v in values])


def _cell(value: Any) -> Any:
    """A value SQLite can bind: whatever a log or a hook hands over must not fail the batch
    (an int beyond 64 bits, a str with surrogates from a non-UTF-8 path, an object)."""
    cls = type(value)
    if cls is str:
        # ASCII (nearly every payload) needs no UTF-8 round trip to be bindable.
        if value.isascii():
            return value
    elif cls is int:  # before the isinstance chain below: a third of an import's cells
        return value if value in _INT64 else str(value)
    elif value is None or cls is float:
        return value
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, default=repr)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if value in _INT64 else str(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if value is None or isinstance(value, (float, bytes)):
        return value
    return repr(value)
