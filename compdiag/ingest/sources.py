"""The text of every user file a run's stored facts name, kept in the store (`sources`).

Analyses read stored facts only (one-way layers): the user's lines a diagnosis quotes, the
line above a failed `raise`, the config assignment a cache bypass points at, the closure cell
a guard reads, come from here, not from the files. So `explain` says the same when the
script's folder has moved, and on a store imported from a colleague's trace. Capture and
import call `store_sources` when a run ends (the files are where the program ran them then);
`compdiag reindex` calls it for runs that have none yet, from the files still there.

Which files: every path a fact of the run names, in a column whose name ends in `filename`
or under a `"filename"` key of a JSON column (frames, stacks, call sites), that is the
user's (formats/user_code.py: not torch, a library, the stdlib, compdiag or generated code).
The text goes to `blobs` (store/blobs.py), so a file is kept once per content however many
runs name it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any, Iterable, Iterator

from compdiag.formats.user_code import is_user_file
from compdiag.store import blobs
from compdiag.store.schema import DERIVED_TABLES

# A file larger than this is not kept (a generated module the user imports, a data file):
# analyses quote lines, and a run's store should not grow by megabytes for one.
MAX_BYTES = 2 * 1024 * 1024
# Tables whose texts are not facts naming user files: raw records, tensors, compdiag's own
# timings and warnings, cache key components (torch's values), the sources themselves.
_SKIPPED = {"records", "tensors", "warnings", "sources", "cache_keys", "cache_key_components",
            "perf_graphs", "perf_runs", "perf_calls", "perf_reports", "compile_events"}


def _script(argv: Any) -> list[str]:
    """The program's own script (`compdiag run train.py ...`), kept even when no stored fact
    names it: a run that compiled nothing has no frame in it, yet what it set (a stance, a
    config) is read there (probes27 stance_eager_on_recompile)."""
    try:
        first = json.loads(argv)[0] if isinstance(argv, str) else None
    except (ValueError, IndexError, TypeError):
        return []
    return [first] if isinstance(first, str) and first.endswith(".py") else []


def named_paths(conn: sqlite3.Connection, run_id: int) -> list[str]:
    """Every file path the run's stored facts name, in first-seen order."""
    seen: dict[str, None] = {}
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for table in DERIVED_TABLES:
        if table in _SKIPPED or table not in tables:
            continue
        cols = [(r[1], (r[2] or "").upper()) for r in conn.execute(f"PRAGMA table_info({table})")]
        names = {c for c, _ in cols}
        if "run_id" not in names:
            continue
        packed = blobs.BLOB_COLUMNS.get(table, {})
        for col, ctype in cols:
            if col.endswith("_blob") or ctype not in ("TEXT", ""):
                continue
            if col.endswith("filename"):
                sql = f"SELECT DISTINCT {col} FROM {table} WHERE run_id = ? AND {col} IS NOT NULL"
                for (value,) in conn.execute(sql, (run_id,)):
                    if isinstance(value, str):
                        seen.setdefault(value, None)
                continue
            expr = (blobs.text_sql(table, col) if col in packed and packed[col] in names
                    else col)
            sql = (f"SELECT DISTINCT t FROM (SELECT {expr} AS t FROM {table} WHERE run_id = ?)"
                   " WHERE t LIKE '%\"filename\"%'")
            for (text,) in conn.execute(sql, (run_id,)):
                for value in _filenames(text):
                    seen.setdefault(value, None)
    return list(seen)


def _filenames(text: Any) -> Iterator[str]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return
    yield from _walk(value)


def _walk(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "filename" and isinstance(v, str):
                yield v
            else:
                yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def user_files(paths: Iterable[str], cwd: str | None) -> dict[str, str]:
    """{the path as analyses resolve it: the text} of the user's files among `paths` that can
    be read now (a relative path is the run's cwd's, as analyses/context.py resolves it)."""
    texts: dict[str, str] = {}
    for path in paths:
        if not is_user_file(path):
            continue
        if not os.path.isabs(path) and cwd:
            path = os.path.normpath(os.path.join(cwd, path))
        if path in texts:
            continue
        try:
            if os.path.getsize(path) > MAX_BYTES:
                continue
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        texts[path] = data.decode("utf-8", errors="replace")
    return texts


def store_sources(writer: Any, run_id: int, *, only_missing: bool = False) -> int:
    """Keep the text of the run's user files (a Writer: capture, import, reindex); returns
    how many. `only_missing`: only the paths the run has no text for yet (reindex). Fail
    open: a file that cannot be read is left out, and analyses then quote no line from it."""
    writer.flush()
    conn = writer.conn
    row = conn.execute("SELECT cwd, argv FROM runs WHERE id = ?", (run_id,)).fetchone()
    cwd = row[0] if row else None
    have: set[str] = set()
    if only_missing:
        have = {r[0] for r in conn.execute("SELECT path FROM sources WHERE run_id = ?",
                                           (run_id,))}
    texts = user_files(named_paths(conn, run_id) + _script(row[1] if row else None), cwd)
    n = 0
    for path, text in texts.items():
        if path not in have:
            writer.upsert("sources", run_id=run_id, path=path, text=text)
            n += 1
    writer.flush()
    return n


def keep_sources(writer: Any, run_id: int) -> None:
    """store_sources for a run that ends (capture, import): fail open, a run's facts and the
    program's exit status never depend on it; what went wrong is a run warning."""
    try:
        store_sources(writer, run_id)
    except Exception as exc:  # noqa: BLE001 - capture is fail-open
        try:
            writer.warn(run_id, f"could not keep the user's source files ({exc})")
        except Exception:  # noqa: BLE001
            pass
