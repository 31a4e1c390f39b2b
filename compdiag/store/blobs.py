"""Large texts stored once, content-addressed, compressed where that pays (issue 34).

A run repeats big texts: the same guard tree, graph, config dump or cache key components
for every compile and every lookup, and compilation_metrics' envelope carries the whole
inductor config each time. A text of at least MIN_CHARS characters in one of BLOB_COLUMNS is
kept once in `blobs` under its hash (zlib-compressed when that saves a tenth or more); the
row holds the hash in the column beside it and NULL (or '' where the column is NOT NULL) in
the text column. Readers put the text back with `text_sql()`, so every query still sees the
same column. zlib only: nothing read back is unpickled or executed.
"""

from __future__ import annotations

import hashlib
import sqlite3
import zlib

MIN_CHARS = 512
# (table, text column) -> the column holding its blob's hash; the empty value a NOT NULL
# text column keeps while its text is in a blob.
BLOB_COLUMNS: dict[str, dict[str, str]] = {
    "records": {"payload": "payload_blob", "metadata": "metadata_blob"},
    "compiles": {"metrics": "metrics_blob"},
}
NOT_NULL_EMPTY = {("records", "metadata"): ""}
LEVEL = 6  # zlib's default: a text is compressed once however often it repeats

INSERT_SQL = "INSERT OR IGNORE INTO blobs (hash, size, zlib, data) VALUES (?, ?, ?, ?)"
TEXT_FN = "compdiag_blob_text"
# Blobs no row names any more (after a run is deleted).
UNUSED_SQL = ("DELETE FROM blobs WHERE hash NOT IN (SELECT payload_blob FROM records WHERE"
              " payload_blob IS NOT NULL UNION SELECT metadata_blob FROM records WHERE"
              " metadata_blob IS NOT NULL UNION SELECT metrics_blob FROM compiles WHERE"
              " metrics_blob IS NOT NULL)")


def key(text: str) -> str:
    """The blob's name: a hash of the text's UTF-8 (the writer makes every text encodable)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def encode(text: str) -> tuple[int, int, bytes]:
    """(size in UTF-8 bytes, 1 if zlib, stored bytes)."""
    raw = text.encode("utf-8")
    packed = zlib.compress(raw, LEVEL)
    if len(packed) <= len(raw) * 0.9:
        return len(raw), 1, packed
    return len(raw), 0, raw


def decode(compressed: int | None, data: bytes | None) -> str | None:
    if data is None:
        return None
    raw = zlib.decompress(data) if compressed else bytes(data)
    return raw.decode("utf-8")


def register(conn: sqlite3.Connection) -> None:
    """The SQL function text_sql() uses (a pure one: it only inflates bytes it is given)."""
    conn.create_function(TEXT_FN, 2, decode, deterministic=True)


def has_blobs(conn: sqlite3.Connection, table: str) -> bool:
    """Whether this store's `table` can hold blobs (a store written before them cannot)."""
    blob_col = next(iter(BLOB_COLUMNS[table].values()))
    return any(row[1] == blob_col for row in conn.execute(f"PRAGMA table_info({table})"))


def text_sql(table: str, column: str, alias: str = "", *, blobs: bool = True) -> str:
    """An SQL expression for the text of `column`, whether inline or in a blob (`alias`: the
    table's alias in the query, with its dot). Without blobs (an older store) the column."""
    if not blobs:
        return f"{alias}{column}"
    blob_col = BLOB_COLUMNS[table][column]
    return (f"CASE WHEN {alias}{blob_col} IS NULL THEN {alias}{column} ELSE "
            f"(SELECT {TEXT_FN}(b.zlib, b.data) FROM blobs b WHERE b.hash = {alias}{blob_col})"
            " END")
