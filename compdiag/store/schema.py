"""The store's schema, in one place.

Raw structured-trace records are kept verbatim in `records` (unknown kinds included), so a
newer torch never loses data; the other tables are derived facts that views query directly.
Payloads are text and tensors raw bytes: nothing read back is ever executed or unpickled.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

SCHEMA_VERSION = 1
# A failure message holds "(in the backward graph)" when AOTAutograd's lazily compiled
# backward failed (bwd_compilation_metrics): the one fact about a failure with no column of its own.
BACKWARD_FAILURE_NOTE = "in the backward graph"

DEFAULT_STORE = Path(".compdiag") / "compdiag.db"


class StoreError(Exception):
    """A store that cannot be opened or read; its message is one line for the user."""


def default_store_path() -> Path:
    return Path(os.environ.get("COMPDIAG_STORE", DEFAULT_STORE))


DDL = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    source        TEXT NOT NULL,          -- 'run' | 'import'
    argv          TEXT NOT NULL,          -- JSON list
    cwd           TEXT,
    started_at    REAL NOT NULL,          -- unix seconds
    ended_at      REAL,
    exit_code     INTEGER,                -- NULL while running or when killed before the end
    status        TEXT NOT NULL,          -- running | done | killed | crashed | imported | partial
    torch_version TEXT,
    device        TEXT,
    mode          TEXT,
    pid           INTEGER
);
CREATE TABLE IF NOT EXISTS warnings (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id  INTEGER NOT NULL,
    message TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,          -- envelope key, or 'artifact:<name>' / 'compdiag:<name>'
    compile_id TEXT,                   -- '0/1', '0/1_1' (attempt), '!0/0/1' (compiled autograd)
    metadata   TEXT NOT NULL,          -- the envelope, JSON, verbatim
    payload    TEXT
);
CREATE INDEX IF NOT EXISTS records_run_kind ON records(run_id, kind);
CREATE INDEX IF NOT EXISTS records_run_cid ON records(run_id, compile_id);
CREATE TABLE IF NOT EXISTS compiles (
    run_id      INTEGER NOT NULL,
    compile_id  TEXT NOT NULL,
    frame       INTEGER,
    frame_compile INTEGER,
    attempt     INTEGER NOT NULL DEFAULT 0,
    co_name     TEXT,
    filename    TEXT,
    lineno      INTEGER,
    status      TEXT NOT NULL DEFAULT 'started',  -- started | ok | graph_break | failed | empty
    stage_times TEXT NOT NULL DEFAULT '{}',       -- JSON {stage: seconds}
    metrics     TEXT,                             -- compilation_metrics, JSON, verbatim
    PRIMARY KEY (run_id, compile_id)
);
CREATE TABLE IF NOT EXISTS graph_breaks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    reason     TEXT NOT NULL,
    gb_type    TEXT,
    gb_code    TEXT,
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT,
    hints      TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS recompiles (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    reason     TEXT NOT NULL,
    guard      TEXT
);
CREATE TABLE IF NOT EXISTS failures (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    stage      TEXT NOT NULL,
    exc_type   TEXT,
    message    TEXT,
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT,
    traceback  TEXT
);
CREATE TABLE IF NOT EXISTS kernels (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    name       TEXT NOT NULL,
    backend    TEXT NOT NULL,          -- triton | cpp | extern
    source     TEXT,
    fx_nodes   TEXT NOT NULL DEFAULT '[]',
    fused_ops  TEXT NOT NULL DEFAULT '[]',
    user_lines TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS fusion (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    node1      TEXT,
    node2      TEXT,
    fused      INTEGER NOT NULL,
    reason     TEXT
);
CREATE TABLE IF NOT EXISTS cudagraphs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    applied    INTEGER NOT NULL,
    reason     TEXT
);
CREATE TABLE IF NOT EXISTS autotune (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    op         TEXT,
    choice     TEXT,
    detail     TEXT
);
CREATE TABLE IF NOT EXISTS cache_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    cache      TEXT NOT NULL,
    hit        INTEGER NOT NULL,
    key        TEXT
);
CREATE TABLE IF NOT EXISTS accuracy (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    output     TEXT,
    max_abs    REAL,
    max_rel    REAL,
    ok         INTEGER NOT NULL,
    detail     TEXT
);
-- Per-compile lookups (the TUI's selection); additive, created with new stores.
CREATE INDEX IF NOT EXISTS graph_breaks_run_cid ON graph_breaks(run_id, compile_id);
CREATE INDEX IF NOT EXISTS recompiles_run_cid ON recompiles(run_id, compile_id);
CREATE INDEX IF NOT EXISTS failures_run_cid ON failures(run_id, compile_id);
CREATE INDEX IF NOT EXISTS kernels_run_cid ON kernels(run_id, compile_id);
CREATE INDEX IF NOT EXISTS fusion_run_cid ON fusion(run_id, compile_id);
CREATE INDEX IF NOT EXISTS cudagraphs_run_cid ON cudagraphs(run_id, compile_id);
CREATE INDEX IF NOT EXISTS accuracy_run_cid ON accuracy(run_id, compile_id);
CREATE TABLE IF NOT EXISTS tensors (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    role       TEXT NOT NULL,          -- e.g. 'input:3'
    dtype      TEXT NOT NULL,
    shape      TEXT NOT NULL,          -- JSON list
    stride     TEXT,
    data       BLOB
);

-- compdiag perf (additive; created on older stores too when opened for writing, see
-- ADDITIVE_DDL): raw eager/compiled samples per compiled graph (per-call seconds, JSON lists),
-- the process' peak memory per run, and the analysis' report kept for the TUI.
CREATE TABLE IF NOT EXISTS perf_graphs (
    run_id       INTEGER NOT NULL,
    compile_id   TEXT NOT NULL,
    eager_s      TEXT NOT NULL DEFAULT '[]',
    compiled_s   TEXT NOT NULL DEFAULT '[]',
    inner        INTEGER,               -- calls per sample
    warmup       INTEGER,
    timer        TEXT,                  -- perf_counter | cuda_events
    device       TEXT,
    grad_enabled INTEGER,
    n_inputs     INTEGER,
    input_bytes  INTEGER,
    output_bytes INTEGER,
    output_copy_s REAL,                 -- median time to copy the outputs once
    calls        INTEGER,               -- calls of the compiled graph in the whole run
    error        TEXT,
    PRIMARY KEY (run_id, compile_id)
);
CREATE TABLE IF NOT EXISTS perf_runs (
    run_id          INTEGER PRIMARY KEY,
    mode            TEXT,
    peak_rss_bytes  INTEGER,
    peak_cuda_bytes INTEGER,
    device          TEXT,
    program_s       REAL,
    settings        TEXT
);
-- whole calls of a torch.compile'd nn.Module: its original module (eager, Python included) vs
-- the OptimizedModule (guards, graphs, the Python between them), per-call seconds.
CREATE TABLE IF NOT EXISTS perf_calls (
    run_id       INTEGER NOT NULL,
    target       TEXT NOT NULL,         -- the module's class, '#2' etc. for a second instance
    eager_s      TEXT NOT NULL DEFAULT '[]',
    compiled_s   TEXT NOT NULL DEFAULT '[]',
    inner        INTEGER,
    warmup       INTEGER,
    timer        TEXT,
    device       TEXT,
    grad_enabled INTEGER,
    at_call      INTEGER,               -- which call of the module was timed (before it ran)
    calls        INTEGER,               -- calls of the module in the whole run
    error        TEXT,
    PRIMARY KEY (run_id, target)
);
CREATE TABLE IF NOT EXISTS perf_reports (
    run_id     INTEGER PRIMARY KEY,    -- the run the report is filed under
    created_at REAL NOT NULL,
    document   TEXT NOT NULL           -- `compdiag perf --json`, verbatim
);
"""

DERIVED_TABLES = (
    "warnings", "records", "compiles", "graph_breaks", "recompiles", "failures", "kernels",
    "fusion", "cudagraphs", "autotune", "cache_events", "accuracy", "tensors",
    "perf_graphs", "perf_runs", "perf_reports", "perf_calls",
)

# Tables added after stores were already in use: created (IF NOT EXISTS) whenever a store is
# opened for writing, so an older store gains them without a version bump.
ADDITIVE_DDL = DDL[DDL.index("-- compdiag perf"):]


BUSY_TIMEOUT_S = 30.0  # how long a connection waits for another process' lock


def connect(path: Path | str, *, create: bool) -> sqlite3.Connection:
    """Open a store, creating it when asked; refuse a newer or foreign file in one line."""
    path = Path(path)
    if not create and not path.exists():
        raise StoreError(f"no store at {path} (run `compdiag run SCRIPT` or pass --store)")
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create a store at {path} ({exc.strerror or exc})") from None
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None,
                               check_same_thread=False)
        _set_wal(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
        # Several processes may create the same new store at once (parallel `compdiag run`s):
        # check and create under one write lock, so each sees no store or a whole one.
        if create:
            conn.execute("BEGIN IMMEDIATE")
        try:
            version = _read_version(conn)
            if version is None:
                # Never add our tables to somebody else's SQLite database.
                tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise StoreError(f"{path} is an SQLite file but not a compdiag store")
                if not create:
                    raise StoreError(f"{path} is an empty store")
                _execute_script(conn, DDL)
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                             (str(SCHEMA_VERSION),))
            elif create and version <= SCHEMA_VERSION:
                _execute_script(conn, ADDITIVE_DDL)
            if create:
                conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} was written by a newer compdiag (store schema {version}, this one reads "
                f"up to {SCHEMA_VERSION}); upgrade compdiag"
            )
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a readable compdiag store ({exc})") from None
    conn.row_factory = sqlite3.Row
    return conn


def _set_wal(conn: sqlite3.Connection) -> None:
    """PRAGMA journal_mode=WAL, retried while the file is locked. On a new file still in
    rollback mode, two processes switching it at once can deadlock on the lock upgrade, and
    SQLite then answers 'database is locked' at once, without its busy handler (seen once in
    a CI run of the concurrent-creation test); wait as the busy timeout would have."""
    import time

    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _execute_script(conn: sqlite3.Connection, script: str) -> None:
    """executescript() would COMMIT the caller's transaction first; run statement by statement
    (comments dropped first: they may hold semicolons; the DDL has no '--' inside literals)."""
    text = "\n".join(line.split("--", 1)[0] for line in script.splitlines())
    for statement in text.split(";"):
        if statement.strip():
            conn.execute(statement)


def _read_version(conn: sqlite3.Connection) -> int | None:
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
    if not has_meta:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        return None
    try:
        return int(row[0])
    except ValueError:
        raise StoreError(f"unreadable store schema version {row[0]!r}") from None
