"""Parallel `compdiag run`s often create the same new store at once (CI, the test suite's own
side-by-side scenarios): every one of them must see a whole store, never half a schema."""

from __future__ import annotations

import subprocess
import sys

WRITE = ("import sys; from compdiag.store.writer import Writer; w = Writer(sys.argv[1]); "
         "w.begin_run(source='run', argv=['x']); w.close(); print('ok')")


def test_concurrent_creation_of_one_new_store(tmp_path):
    for trial in range(3):
        db = tmp_path / f"s{trial}.db"
        procs = [subprocess.Popen([sys.executable, "-c", WRITE, str(db)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(6)]
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(o.strip() == "ok" for o, _ in outs), [e[-500:] for _, e in outs]
        from compdiag.store.reader import Reader

        with Reader(db) as r:
            assert len(r.runs()) == 6


def test_wal_switch_waits_out_a_lock_reported_without_the_busy_handler(tmp_path, monkeypatch):
    """The rare race behind a CI failure: SQLite answers the first PRAGMA journal_mode=WAL of a
    new file with 'database is locked' at once (a lock-upgrade deadlock skips the busy
    handler). connect() must wait and retry, not fail the run."""
    import sqlite3

    from compdiag.store import schema

    class Flaky(sqlite3.Connection):
        refusals = 2

        def execute(self, sql, *args):  # noqa: ANN001, ANN002
            if sql.startswith("PRAGMA journal_mode") and Flaky.refusals:
                Flaky.refusals -= 1
                raise sqlite3.OperationalError("database is locked")
            return super().execute(sql, *args)

    real = sqlite3.connect
    monkeypatch.setattr(schema.sqlite3, "connect",
                        lambda *a, **k: real(*a, **k, factory=Flaky))
    conn = schema.connect(tmp_path / "s.db", create=True)
    assert Flaky.refusals == 0
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_a_store_created_between_two_looks_is_not_foreign(tmp_path):
    """The race behind a CI failure of test_concurrent_creation_of_one_new_store: outside a
    transaction each statement reads its own snapshot, and the foreign-file check read the
    schema version first (none yet) and the tables second (another process had just
    committed the whole store), so a new compdiag store was refused as "an SQLite file but
    not a compdiag store". Here the other process commits between the first two statements
    (with the old order this returned True)."""
    import sqlite3

    from compdiag.store import schema

    db = tmp_path / "s.db"
    sqlite3.connect(str(db)).close()

    class Racing(sqlite3.Connection):
        looks = 0

        def execute(self, sql, *args):  # noqa: ANN001, ANN002
            Racing.looks += 1
            if Racing.looks == 2:  # the other process commits between the first two looks
                schema.connect(db, create=True).close()
            return super().execute(sql, *args)

    conn = sqlite3.connect(str(db), factory=Racing, isolation_level=None)
    try:
        assert schema._foreign(conn) is False
    finally:
        conn.close()
