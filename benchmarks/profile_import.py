"""Where `compdiag import` spends its CPU, and whether two imports stored the same thing.

    python benchmarks/profile_import.py cpu LOG [--profile]   # the import in one process
    python benchmarks/profile_import.py compare A.db B.db     # every table, read back

`cpu` imports LOG (a file or a directory of rank logs) into a fresh store in this process,
with `os.cpu_count` set to 1 so no writer process or worker takes part, and prints the
process's CPU time; with --profile, under `cProfile.Profile(time.process_time)`, the
functions by cumulative and by own CPU (the profiler inflates every figure, read the
ranking). To compare two versions, run it alternately from each checkout (or with
PYTHONPATH set to the other one's tree).

`compare` reads every table of two stores back as text (texts kept in blobs through
`blobs.text_sql`, a record's envelope with its `has_payload` put back), leaves out what differs
between two imports of one log (`runs`' times, argv and cwd; the row ids of tables that a
directory's workers fill in parallel), and hashes each table's sorted rows: the check that a
change to the import loses nothing (docs/capture.md, "Import speed"). Exit status 1 when a
table differs.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

# Columns that differ between two imports of the same log.
VOLATILE = {("runs", "started_at"), ("runs", "ended_at"), ("runs", "argv"), ("runs", "cwd")}


def cpu(log: Path, profile: bool) -> None:
    os.cpu_count = lambda: 1  # no writer process, no workers: all of it in this process
    from compdiag.importer.trace_log import import_trace

    store = Path(tempfile.mkdtemp(prefix="compdiag-profile-import-")) / "store.db"
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile(time.process_time)
    t0 = time.process_time()
    if prof is not None:
        prof.enable()
    import_trace(store, log)
    if prof is not None:
        prof.disable()
    print(f"import of {log}: {time.process_time() - t0:.3f} s of CPU in one process")
    if prof is not None:
        import pstats

        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(25)


def table_digests(path: Path) -> dict[str, tuple[str, int]]:
    """table -> (hash of its sorted rows read back, row count)."""
    from compdiag.store import blobs
    from compdiag.store.schema import connect

    conn = connect(path, create=False)
    out = {}
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " AND name != 'blobs' ORDER BY name")]  # blobs: read through the columns naming them
    for table in names:
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        kept = blobs.BLOB_COLUMNS.get(table, {})
        exprs = [blobs.text_sql(table, c, hashes=True) if c in kept else c for c in cols
                 if not (c == "id" and table != "runs") and c not in kept.values()
                 and (table, c) not in VOLATILE
                 and not (table == "records" and c == blobs.HASH_FLAG)]
        rows = sorted(repr(tuple(r)) for r in conn.execute(
            f"SELECT {', '.join(exprs)} FROM {table}"))
        digest = hashlib.sha256()
        for row in rows:
            digest.update(row.encode("utf-8", "surrogatepass") + b"\n")
        out[table] = (digest.hexdigest()[:16], len(rows))
    conn.close()
    return out


def compare(a: Path, b: Path) -> int:
    da, db = table_digests(a), table_digests(b)
    tables = sorted(set(da) | set(db))
    differ = [t for t in tables if da.get(t) != db.get(t)]
    print(f"{len(tables) - len(differ)} of {len(tables)} tables equal "
          f"({sum(n for _, n in da.values())} rows in {a.name})")
    for t in differ:
        print(f"  {t}: {da.get(t)} against {db.get(t)}")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("cpu", help="the import's CPU in one process")
    p.add_argument("log", type=Path)
    p.add_argument("--profile", action="store_true")
    p = sub.add_parser("compare", help="two stores, table by table")
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    args = ap.parse_args()
    for path in [getattr(args, n) for n in ("log", "a", "b") if hasattr(args, n)]:
        if not path.exists():
            print(f"profile_import: {path}: no such file or directory", file=sys.stderr)
            return 2
    if args.what == "cpu":
        cpu(args.log, args.profile)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
