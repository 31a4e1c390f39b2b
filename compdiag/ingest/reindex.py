"""Re-derive a store's facts from its raw records: `compdiag reindex`, and the upgrade of a
store written by an older compdiag.

The `records` table keeps every record torch emitted, verbatim, so what ingest derives from
them can always be derived again: by a newer parser, or into tables an older layout lacked.
Replaying goes through the same Ingestor as live capture and import, with a writer that lets
through only the tables rebuilt here (schema.REINDEXED_TABLES); what only live capture saw
(accuracy checks, tensors, timings, fusion candidates) stays as it is, and the facts ingest
derives from those rows' own text (schema.BACKFILLED_COLUMNS) are derived again from it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from compdiag.store import blobs
from compdiag.store.schema import (BACKFILLED_COLUMNS, BACKFILLED_WHEN_EMPTY, REINDEXED_TABLES,
                                   STORE_VERSION, StoreError, StoreNeedsReindex, connect, migrate)
from compdiag.store.writer import Writer
from compdiag.store.writer import _cell as sql_value  # the Writer's own conversion

if TYPE_CHECKING:
    from compdiag.ingest.ingestor import Ingestor


class Reindexed(NamedTuple):
    """A NamedTuple, not a dataclass: `compdiag run` imports this module on every run, and
    dataclasses brings inspect, ast and dis with it (issue 34)."""

    path: Path
    from_version: int
    runs: int
    records: int


class _FactsOnly:
    """The Writer surface the Ingestor uses, passing on only the rebuilt tables."""

    def __init__(self, writer: Writer) -> None:
        self._w = writer

    def insert(self, table: str, **cols: Any) -> None:
        if table in REINDEXED_TABLES:
            self._w.insert(table, **cols)

    def insert_rows(self, table: str, names: tuple[str, ...], rows: list[tuple]) -> None:
        if table in REINDEXED_TABLES:
            self._w.insert_rows(table, names, rows)

    def upsert(self, table: str, **cols: Any) -> None:
        if table in REINDEXED_TABLES:
            self._w.upsert(table, **cols)

    def update(self, table: str, where: dict[str, Any], **cols: Any) -> None:
        if table in REINDEXED_TABLES:
            self._w.update(table, where, **cols)

    def warn(self, run_id: int, message: str) -> None:
        """A replay repeats the warnings its run already has."""


def reindex(path: Path | str, *, only_if_older: bool = False) -> Reindexed:
    """Upgrade the store's layout if it is older, then rebuild every run's derived facts.
    `only_if_older`: rebuild nothing when the layout is already current (another process,
    e.g. another rank of the same job, upgraded it first)."""
    path = Path(path)
    conn = connect(path, create=True, upgrade=True)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = migrate(conn)
            conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        run_ids = [r[0] for r in conn.execute("SELECT id FROM runs ORDER BY id")]
        if only_if_older and version >= STORE_VERSION:
            return Reindexed(path=path, from_version=version, runs=0, records=0)
        conn.execute("BEGIN IMMEDIATE")
        for table in REINDEXED_TABLES:
            conn.execute(f"DELETE FROM {table}")
        _backfill(conn)
        conn.execute("COMMIT")
        # imported here: `compdiag run` imports this module for ensure_current on every run,
        # and needs the Ingestor only for an old store (~35 ms of its start, issue 34)
        from compdiag.ingest.ingestor import Ingestor

        writer = Writer(path, flush_interval=1.0)
        total = 0
        try:
            for run_id in run_ids:
                total += _replay(conn, Ingestor(_FactsOnly(writer), run_id), run_id)
            # The user files the facts name that a run keeps no text of yet (a store older
            # than `sources`, or a file that was not readable then): from the files still
            # there. A text the run kept stays as it was when it ran.
            from compdiag.ingest.sources import store_sources

            for run_id in run_ids:
                store_sources(writer, run_id, only_missing=True)
        finally:
            writer.close()
        blobs.drop_unused(conn)  # blobs only the old derived rows named
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: cannot reindex the store ({exc})") from None
    finally:
        conn.close()
    return Reindexed(path=path, from_version=version, runs=len(run_ids), records=total)


def _backfill_rules() -> dict[str, tuple[tuple[str, ...], Any]]:
    """table -> (the columns a row's facts derive from, the ingest function deriving them).
    The parsers are imported here, not with the module: `compdiag run` imports this module
    on every run and needs them only for an old store (their ~90 regexes compiled: ~50 ms
    of the parent's CPU, issue 34)."""
    from compdiag.ingest import parsers as P

    return {
        "failures": (("exc_type", "message", "traceback", "torch_message"), P.failure_facts),
        "cudagraphs": (("reason",), lambda reason: P.cudagraph_skip_facts(reason)),
        "compiles": (("metrics",), lambda metrics: P.metrics_facts(_json_dict(metrics))),
    }


def _text_columns(conn: sqlite3.Connection, table: str, cols: tuple[str, ...]) -> list[str]:
    """The SELECT expressions of `cols`, a text store/blobs.py moved out of its row
    (compilation_metrics) read back."""
    return [blobs.text_sql(table, c, blobs=blobs.has_blobs(conn, table))
            if c in blobs.BLOB_COLUMNS.get(table, {}) else c for c in cols]


def _restage(conn: sqlite3.Connection) -> None:
    """Each compile failure's stage again, by this compdiag's rules (parse_failures.
    classify_stage), from the row's own text; one at run time (or of the accuracy check) is
    what capture saw, kept."""
    from compdiag.ingest import parsers as P

    compiling = set(P.STAGES) - {"runtime", "accuracy"}
    cols = _text_columns(conn, "failures", ("exc_type", "message", "traceback",
                                            "torch_message"))
    for rowid, exc_type, message, traceback, torch_message, stage in conn.execute(
            f"SELECT rowid, {', '.join(cols)}, stage FROM failures").fetchall():
        if stage in compiling and traceback:
            new = P.classify_stage(exc_type, torch_message or message,
                                   f"{traceback}\n{message}" if torch_message else traceback)
            if new != stage:
                conn.execute("UPDATE failures SET stage = ? WHERE rowid = ?", (new, rowid))


def _backfill(conn: sqlite3.Connection) -> None:
    """BACKFILLED_COLUMNS of every row, from the row's own text, by the functions the
    Ingestor calls when it writes the row."""
    blobs.register(conn)
    for table, (source, derive) in _backfill_rules().items():
        cols = BACKFILLED_COLUMNS[table]
        keep = BACKFILLED_WHEN_EMPTY.get(table, ())
        sets = ", ".join(f"{c} = COALESCE({c}, ?)" if c in keep else f"{c} = ?" for c in cols)
        where = "WHERE applied = 0" if table == "cudagraphs" else ""
        exprs = _text_columns(conn, table, source)
        rows = conn.execute(f"SELECT rowid, {', '.join(exprs)} FROM {table} {where}").fetchall()
        for rowid, *text in rows:
            facts = derive(*text)
            conn.execute(f"UPDATE {table} SET {sets} WHERE rowid = ?",
                         [sql_value(facts[c]) for c in cols] + [rowid])
    _restage(conn)


def _json_dict(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _replay(conn: sqlite3.Connection, ing: Ingestor, run_id: int) -> int:
    n = 0
    text = blobs.has_blobs(conn, "records")
    # The envelope as stored: ingest reads no has_payload (store/blobs.py leaves it out).
    for seq, kind, cid, metadata, payload in conn.execute(
            f"SELECT seq, kind, compile_id, {blobs.text_sql('records', 'metadata', blobs=text)},"
            f" {blobs.text_sql('records', 'payload', blobs=text)} FROM records WHERE run_id = ?"
            " ORDER BY seq", (run_id,)):
        n += 1
        ing.seq = seq - 1  # the record's own seq, as it was ingested
        if kind.startswith("compdiag:"):
            ing.seq = seq
            own = _json_dict(metadata).get("compdiag")
            ing.event_facts(kind.split(":", 1)[1], cid, payload,
                            own if isinstance(own, dict) else None)
            continue
        try:
            md = json.loads(metadata)
        except ValueError:
            continue
        if isinstance(md, dict):
            ing.record(md, payload)
    ing.flush()
    return n


def ensure_current(path: Path | str, note: Any = None) -> Reindexed | None:
    """Before writing into an existing store: upgrade it if an older compdiag wrote it, and
    say so in one line through `note` (a callable taking the line)."""
    try:
        connect(Path(path), create=False).close()
    except StoreNeedsReindex:
        done = reindex(path, only_if_older=True)
        if done.from_version >= STORE_VERSION:
            return None  # upgraded meanwhile by another process
        if note is not None:
            note(f"compdiag: upgraded {done.path} from store schema {done.from_version} to "
                 f"{STORE_VERSION} (facts re-derived from {done.records} raw records)")
        return done
    except StoreError:
        pass  # a new path, or a file connect(create=True) will refuse in its own words
    return None
