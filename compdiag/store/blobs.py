"""Large texts stored once, content-addressed; every text compressed where that pays (issue 34).

A run repeats big texts: the same guard tree, graph, config dump or cache key components for
every compile and every lookup, and compilation_metrics' envelope carries the whole inductor
config each time; and it has thousands of small ones (chromium events, tensor descriptions)
that share their words. So a text in one of BLOB_COLUMNS is kept

- from MIN_BLOB characters: once in `blobs`, under its hash, compressed when that saves a
  tenth or more (with the preset dictionary too, or as a delta); the row's `*_blob` column
  holds the hash (TEXT);
- from MIN_PACK characters: in the row itself, compressed with the preset dictionary of
  store/zdict.py, in the same `*_blob` column (BLOB), where that saves a tenth or more;
- otherwise inline, as before.

The text column then holds NULL ('' where it is NOT NULL). Readers put the text back with
`text_sql()`, so every query still sees the same column. zlib and md5 only: nothing read
back is unpickled or executed. Codecs (blobs.codec): 0 UTF-8, 1 zlib, 2 raw deflate with ZDICT_V1,
3 raw deflate with the text of the blob named in `base` as its dictionary: a record like one
before it (the next compile's guard tree or compilation_metrics) costs what differs; 4 the
same for a base longer than deflate's 32 KiB window (compilation_metrics' envelope with the
whole inductor config, ~38 KB): the text in CHUNK-byte pieces, each deflated with the base's
bytes around the same offset as its dictionary, so a repeat anywhere in the base is in reach
(two texts of one kind differ in a few values, so offsets drift little); 5 zstd; 6 zstd with
the text of the blob named in `base` as its raw dictionary (zstd reaches the whole base, however
long). A base is never itself a delta, so a text is at most two decompressions away.

What is written now: a small text, codec 2 (zstd's frame and its weaker use of a short
dictionary make a 200-byte record a third larger); a large text, codec 6 where its kind has a
base, else 5. Codecs 1, 3 and 4 are still read (stores written before), no longer written: a
large text was deflated twice (with the dictionary and as a delta, in pieces past 32 KiB) to
keep the smaller, 1.5 s of CPU for a 23 MB log, where zstd's delta is one pass of 0.07 s and
smaller (issue 34, docs/capture.md).
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3
import zlib

from compdiag.store.zdict import ZDICT_V1

try:  # the standard library's from Python 3.14; before it, the same module as a backport
    from compression import zstd  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the Python version
    from backports import zstd  # type: ignore[import-not-found,no-redef]

MIN_BLOB = 512
MIN_PACK = 48
# table -> {text column: the column holding its blob's hash or its packed bytes}
BLOB_COLUMNS: dict[str, dict[str, str]] = {
    "records": {"payload": "payload_blob", "metadata": "metadata_blob"},
    "compiles": {"metrics": "metrics_blob"},
    # Inductor's kernels: the source of each (C++ or Triton, ~2 KB, alike from one kernel to
    # the next and the same again at a recompile), its FX nodes and user lines (JSON lists).
    "kernels": {"source": "source_blob", "fx_nodes": "fx_nodes_blob",
                "user_lines": "user_lines_blob"},
    # the fusion logger's scheduler nodes: each one's user frames (JSON, the same lines again)
    "sched_nodes": {"frames": "frames_blob"},
    # the Python stack at each compile's start (JSON frames: the same stack again and again)
    "compile_stacks": {"frames": "frames_blob"},
    # a cache lookup's key components (JSON, ~50 KB: the next lookup's differs a little)
    "cache_keys": {"components": "components_blob"},
    # the user's source files the run's facts name (ingest/sources.py): the same script in
    # every run of it, kept once
    "sources": {"text": "text_blob"},
}
# The value a NOT NULL text column keeps while its text is elsewhere.
NOT_NULL_EMPTY = {("records", "metadata"): "", ("kernels", "fx_nodes"): "",
                  ("kernels", "user_lines"): "", ("sched_nodes", "frames"): "",
                  ("compile_stacks", "frames"): ""}
LEVEL = 6  # zlib's default: a shared text is compressed once however often it repeats
# ZLIB, DELTA, CHUNKED: read in stores written before ZSTD (no longer written)
RAW, ZLIB, ZDICT, DELTA, CHUNKED, ZSTD, ZSTD_DELTA = 0, 1, 2, 3, 4, 5, 6
DELTAS = (DELTA, CHUNKED, ZSTD_DELTA)
ZSTD_LEVEL = 3  # zstd's default; level 1 was 1.5x the bytes of a delta for 20 % less time
# The frame without what the row says already (its size) or nothing needs (a checksum: the
# blob's hash names the text; a dictionary id: the row names its base).
_ZSTD_OPTIONS = {zstd.CompressionParameter.compression_level: ZSTD_LEVEL,
                 zstd.CompressionParameter.checksum_flag: 0,
                 zstd.CompressionParameter.content_size_flag: 0,
                 zstd.CompressionParameter.dict_id_flag: 0}
WINDOW = 32768  # deflate reads no further back: a base's last 32 KiB are its dictionary
_LOOKAHEAD = 262  # deflate's MIN_LOOKAHEAD: a window reaches back this much less than its size
# CHUNKED: a piece of CHUNK bytes at offset o has the base's bytes [o - SLACK, o + CHUNK +
# SLACK) as its dictionary (one window). Fixed forever: stores written with them read with them.
CHUNK, SLACK = 16384, 8192

# records: the envelope's `has_payload` (the md5 of the payload, which torch puts last) is
# left out of the stored metadata where it is the md5 of the row's payload, and put back on
# read; the row's HASH_FLAG column is 1 then. Its 32 hex digits were a third of a small
# record's compressed bytes (a chromium event's), and say nothing the payload does not.
HASH_FLAG = "payload_md5"
ENVELOPE_FN = "compdiag_envelope"
_HASH_HEAD = ', "has_payload": "'
HASH_BYTES = len(_HASH_HEAD) + 32 + 1  # what the stored metadata lacks: `, "has_payload": "…"`
# Only a small payload's: there the md5 is a large share of the row, and putting it back on
# read costs little (a large payload's would cost an md5 of it at every read, for 0.3%).
MAX_HASHED = 4096

INSERT_SQL = ("INSERT OR IGNORE INTO blobs (hash, size, codec, data, base) VALUES (?, ?, ?, ?, ?)")
TEXT_FN = "compdiag_blob_text"
# Blobs no row names any more (after a run is deleted or its facts re-derived).
UNUSED_SQL = ("DELETE FROM blobs WHERE hash NOT IN (" + " UNION ".join(
    f"SELECT {b} FROM {t} WHERE typeof({b}) = 'text'"
    for t, cols in BLOB_COLUMNS.items() for b in cols.values())
    + " UNION SELECT base FROM blobs WHERE base IS NOT NULL)")


def drop_unused(conn: sqlite3.Connection) -> None:
    """Delete the blobs no row names; twice, so a base whose deltas went goes too (a base is
    never a delta: two passes reach every blob)."""
    for _ in range(2):
        conn.execute(UNUSED_SQL)


def key(text: str) -> str:
    """The blob's name: a hash of the text's UTF-8 (the writer makes every text encodable)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def payload_md5(payload: str) -> str:
    """has_payload as torch and the trace writer compute it."""
    return hashlib.md5(payload.encode("utf-8", "surrogatepass")).hexdigest()


def strip_payload_md5(metadata: str, payload: str) -> str | None:
    """The envelope without its last key `has_payload` where that is the md5 of a payload of
    at most MAX_HASHED characters (None otherwise: the text is kept as it is)."""
    n = HASH_BYTES + 1
    if len(payload) > MAX_HASHED or len(metadata) < n or metadata[-n:-34] != _HASH_HEAD \
            or not metadata.endswith('"}'):
        return None
    if metadata[-34:-2] != payload_md5(payload):
        return None
    return metadata[:-n] + "}"


def put_payload_md5(metadata: str | None, payload: str | None) -> str | None:
    """The envelope strip_payload_md5 shortened, whole again."""
    if metadata is None or payload is None or not metadata.endswith("}"):
        return metadata
    return f'{metadata[:-1]}{_HASH_HEAD}{payload_md5(payload)}"}}'


def _deflate(raw: bytes, zdict: bytes) -> bytes:
    """Raw deflate of `raw` with `zdict` as its dictionary, in a window just large enough
    for both (any window decodes it: _inflate's is the largest). A compressor costs what it
    allocates and clears, and a small text packed with the 4 KB preset dictionary in
    deflate's largest window with memLevel 9 cost ten times its compression (issue 34)."""
    wbits = _wbits(len(zdict) + len(raw))
    co = zlib.compressobj(LEVEL, zlib.DEFLATED, -wbits, 9 if wbits == 15 else 8,
                          zlib.Z_DEFAULT_STRATEGY, zdict)
    return co.compress(raw) + co.flush()


def _inflate(data: bytes, zdict: bytes) -> bytes:
    do = zlib.decompressobj(-15, zdict)
    return do.decompress(data) + do.flush()


def encode(text: str, base: str | None = None) -> tuple[int, int, bytes, bool]:
    """A shared text as (size in UTF-8 bytes, codec, stored bytes, whether it uses `base`):
    zstd, with `base` (a text stored before it, of the same kind) as its dictionary where
    there is one; plain where that does not save a tenth. One compression per text."""
    raw = text.encode("utf-8")
    data = _zstd_compressor(base).compress(raw, zstd.ZstdCompressor.FLUSH_FRAME)
    if len(data) > len(raw) * 0.9:
        return len(raw), RAW, raw, False
    return len(raw), (ZSTD if base is None else ZSTD_DELTA), data, base is not None


@functools.lru_cache(maxsize=64)
def _zstd_compressor(base: str | None) -> "zstd.ZstdCompressor":
    """One compressor per base, reused: loading a dictionary costs more than compressing a
    text with it (a run's bases are one per record kind, a few dozen; the writer keeps each
    base's str object, so its hash is computed once)."""
    if base is None:
        return zstd.ZstdCompressor(options=_ZSTD_OPTIONS)
    return zstd.ZstdCompressor(options=_ZSTD_OPTIONS, zstd_dict=_zstd_dict(base.encode("utf-8")))


def _zstd_dict(base: bytes) -> "zstd.ZstdDict":
    return zstd.ZstdDict(base, is_raw=True)


def encode_deflate(text: str, base: str | None = None) -> tuple[int, int, bytes, bool]:
    """encode() as it was before zstd (codecs 2, 3, 4; tests and stores written by older
    versions): the smallest of plain, deflated with the preset dictionary, a delta against
    `base` (in pieces where `base` is longer than deflate's window)."""
    raw = text.encode("utf-8")
    best = (len(raw), RAW, raw, False)
    # Deflate with the small texts' dictionary: as zlib where it has nothing to offer (less
    # zlib's 6 bytes of frame), a few percent smaller where it does (envelope keys).
    packed = _deflate(raw, ZDICT_V1)
    if len(packed) <= len(raw) * 0.9:
        best = (len(raw), ZDICT, packed, False)
    if base is not None:
        base_raw = base.encode("utf-8")
        delta = _deflate(raw, base_raw[-WINDOW:])
        if len(delta) < len(best[2]) * 0.9:
            best = (len(raw), DELTA, delta, True)
        if len(base_raw) > WINDOW:
            chunked = _deflate_chunks(raw, base_raw)
            if len(chunked) < len(best[2]) * 0.9:
                best = (len(raw), CHUNKED, chunked, True)
    return best


def _chunk_dict(base: bytes, offset: int) -> bytes:
    return base[max(0, offset - SLACK):offset + CHUNK + SLACK]


def _deflate_chunks(raw: bytes, base: bytes) -> bytes:
    """CHUNKED: each piece as its 4-byte big-endian length and its deflate bytes."""
    out = bytearray()
    for o in range(0, len(raw), CHUNK):
        piece = _deflate(raw[o:o + CHUNK], _chunk_dict(base, o))
        out += len(piece).to_bytes(4, "big") + piece
    return bytes(out)


def _inflate_chunks(data: bytes, base: bytes) -> bytes:
    out, i = bytearray(), 0
    while i < len(data):
        n = int.from_bytes(data[i:i + 4], "big")
        out += _inflate(data[i + 4:i + 4 + n], _chunk_dict(base, len(out)))
        i += 4 + n
    return bytes(out)


def pack(text: str) -> bytes | None:
    """A small text compressed on its own (codec ZDICT), or None where that does not pay.
    The compressor is a copy of one already primed with the preset dictionary for that
    window (read back as _deflate's are; setting the dictionary each time was a seventh of
    the packing, thousands of small records a log)."""
    raw = text.encode("utf-8")
    co = _primed(_wbits(len(ZDICT_V1) + len(raw))).copy()
    packed = co.compress(raw) + co.flush()
    return packed if len(packed) <= len(raw) * 0.9 else None


@functools.lru_cache(maxsize=None)
def _primed(wbits: int) -> "zlib._Compress":
    """memLevel 2 below the largest window: a copy duplicates the compressor's hash table and
    symbol buffer, 64 KB each at the default 8 and 1 KB each at 2, so the copy cost more than
    the compression. For a text under MIN_BLOB bytes it makes the same bytes (8,838 of
    8,838 of a rank log's small texts; any memLevel decodes alike) at 0.57x the CPU."""
    return zlib.compressobj(LEVEL, zlib.DEFLATED, -wbits, 9 if wbits == 15 else _PACK_MEM_LEVEL,
                            zlib.Z_DEFAULT_STRATEGY, ZDICT_V1)


_PACK_MEM_LEVEL = 2


def _wbits(n: int) -> int:
    """The smallest window that holds n bytes (dictionary and text) and deflate's lookahead."""
    return min(15, max(9, (n + _LOOKAHEAD).bit_length()))


def decode(codec: int | None, data: bytes | None, base_codec: int | None = None,
           base_data: bytes | None = None) -> str | None:
    """The text of stored bytes (for a delta, its base's codec and bytes too)."""
    if data is None:
        return None
    if codec == ZLIB:
        raw = zlib.decompress(data)
    elif codec == ZDICT:
        raw = _inflate(data, ZDICT_V1)
    elif codec == DELTA:
        raw = _inflate(data, _base_text(base_codec, bytes(base_data or b""))[-WINDOW:])
    elif codec == CHUNKED:
        raw = _inflate_chunks(bytes(data), _base_text(base_codec, bytes(base_data or b"")))
    elif codec == ZSTD:
        raw = zstd.decompress(bytes(data))
    elif codec == ZSTD_DELTA:
        raw = zstd.decompress(bytes(data), zstd_dict=_base_dict(base_codec,
                                                                 bytes(base_data or b"")))
    else:
        raw = bytes(data)
    return raw.decode("utf-8")


@functools.lru_cache(maxsize=8)
def _base_text(codec: int | None, data: bytes) -> bytes:
    """A base's bytes, kept for the deltas read after it (they come in runs)."""
    if codec in DELTAS:
        raise ValueError("a delta's base is itself a delta")
    return (decode(codec, data) or "").encode("utf-8")


@functools.lru_cache(maxsize=8)
def _base_dict(codec: int | None, data: bytes) -> "zstd.ZstdDict":
    return _zstd_dict(_base_text(codec, data))


def register(conn: sqlite3.Connection) -> None:
    """The SQL function text_sql() uses (a pure one: it only inflates bytes it is given)."""
    conn.create_function(TEXT_FN, -1, decode, deterministic=True)
    conn.create_function(ENVELOPE_FN, 2, put_payload_md5, deterministic=True)


def has_blobs(conn: sqlite3.Connection, table: str) -> bool:
    """Whether this store's `table` can hold blobs (a store written before them cannot)."""
    return has_column(conn, table, next(iter(BLOB_COLUMNS[table].values())))


def has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in conn.execute(f"PRAGMA table_info({table})"))


def hashes_sql(text: str, alias: str = "", *, blobs: bool = True) -> str:
    """records.metadata's text `text` with the has_payload strip_payload_md5 left out put
    back (its payload read again: where both are wanted, put_payload_md5 on the two is
    cheaper)."""
    return (f"CASE WHEN {alias}{HASH_FLAG} = 1 THEN {ENVELOPE_FN}({text}, "
            f"{text_sql('records', 'payload', alias, blobs=blobs)}) ELSE {text} END")


def text_sql(table: str, column: str, alias: str = "", *, blobs: bool = True,
             hashes: bool = False) -> str:
    """An SQL expression for the text of `column`, wherever it is kept (`alias`: the table's
    alias in the query, with its dot). Without blobs (an older store) the column itself.
    `hashes` (a store whose records have HASH_FLAG): records.metadata whole, has_payload
    put back."""
    if hashes and (table, column) == ("records", "metadata"):
        return hashes_sql(text_sql(table, column, alias, blobs=blobs), alias, blobs=blobs)
    if not blobs:
        return f"{alias}{column}"
    b = f"{alias}{BLOB_COLUMNS[table][column]}"
    return (f"CASE WHEN {b} IS NULL THEN {alias}{column}"
            f" WHEN typeof({b}) = 'blob' THEN {TEXT_FN}({ZDICT}, {b})"
            f" ELSE (SELECT {TEXT_FN}(x.codec, x.data, y.codec, y.data) FROM blobs x"
            f" LEFT JOIN blobs y ON y.hash = x.base WHERE x.hash = {b}) END")
