"""`compdiag reindex` and the upgrade of an older store: a store written by the compdiag of
schema 1 (tests/fixtures/store_schema1.db.gz: corpus/rc_train_eval.py captured at e38b0a7,
torch 2.13 CPU) is refused by read commands in one line and left byte for byte as it was;
reindex re-derives its facts from its raw records, after which explain reads them. Fast: no
compile."""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from compdiag.ingest.reindex import ensure_current, reindex
from compdiag.store import blobs
from compdiag.store.reader import Reader
from compdiag.store.schema import REINDEXED_TABLES, STORE_VERSION, StoreNeedsReindex

FIXTURE = Path(__file__).parent / "fixtures" / "store_schema1.db.gz"


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    path.write_bytes(gzip.decompress(FIXTURE.read_bytes()))
    return path


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compdiag", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def _tables(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}")))
                for t in REINDEXED_TABLES + ("compiles", "recompiles", "failures", "records")}
    finally:
        conn.close()


@pytest.mark.parametrize("command", ["show", "explain", "runs"])
def test_a_read_command_refuses_an_older_store_in_one_line_and_leaves_it_alone(
        old_store: Path, command: str) -> None:
    before = old_store.read_bytes()
    p = _cli(command, "--store", old_store)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "schema 1" in p.stderr and f"compdiag reindex --store {old_store}" in p.stderr
    assert old_store.read_bytes() == before


def test_reindex_derives_the_facts_explain_reads(old_store: Path) -> None:
    conn = sqlite3.connect(old_store)
    cursor = conn.execute("SELECT * FROM compiles ORDER BY compile_id")
    compiles_before = cursor.fetchall()
    columns = ", ".join(d[0] for d in cursor.description)
    conn.close()
    p = _cli("reindex", "--store", old_store)
    assert p.returncode == 0, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "schema 1" in p.stderr, p.stderr
    with Reader(old_store) as r:
        assert r.conn.execute("SELECT value FROM meta WHERE key='schema_version'"
                              ).fetchone()[0] == str(STORE_VERSION)
        events = r.recompile_events(1)
        assert [(e["compile_id"], e["category"], e["guarded"]) for e in events] == [
            ("0/1", "training", "fn._modules['1'].training")]
        assert r.compile_stacks(1)["0/0"], "dynamo_start stacks were not derived"
    # The compiles are re-derived as they were, with the generation (none: no reset) added,
    # and the facts ingest derives from their text (schema.BACKFILLED_COLUMNS: here
    # compilation_metrics' guard count); compilation_metrics is kept in a blob
    # (store/blobs.py puts its text back).
    conn = sqlite3.connect(old_store)
    blobs.register(conn)
    columns = columns.replace("metrics", blobs.text_sql("compiles", "metrics"))
    assert conn.execute(f"SELECT {columns} FROM compiles ORDER BY compile_id").fetchall() == \
        compiles_before
    assert {g for (g,) in conn.execute("SELECT generation FROM compiles")} == {0}
    counts = [json.loads(metrics).get("guard_count") for metrics, in conn.execute(
        f"SELECT {blobs.text_sql('compiles', 'metrics')} FROM compiles ORDER BY compile_id")]
    assert conn.execute("SELECT guard_count FROM compiles ORDER BY compile_id").fetchall() == \
        [(n,) for n in counts] and any(counts)
    conn.close()
    doc = json.loads(_cli("explain", "--store", old_store, "--json").stdout)
    top = doc["diagnoses"][0]
    assert top["kind"] == "recompile" and top["details"]["category"] == "training"
    assert top["reason"] == "train/eval mode fn[1].training changed (True -> False)"
    assert top["user_frame"]["lineno"] == 8


def test_reindex_is_idempotent(old_store: Path) -> None:
    first = reindex(old_store)
    assert (first.from_version, first.runs) == (1, 1) and first.records > 0
    after_first = _tables(old_store)
    second = reindex(old_store)
    assert second.from_version == STORE_VERSION
    assert _tables(old_store) == after_first


def test_writing_into_an_older_store_upgrades_it_with_a_note(old_store: Path) -> None:
    notes: list[str] = []
    with pytest.raises(StoreNeedsReindex):
        Reader(old_store)
    done = ensure_current(old_store, notes.append)
    assert done is not None and len(notes) == 1
    assert f"upgraded {old_store} from store schema 1 to {STORE_VERSION}" in notes[0]
    assert ensure_current(old_store, notes.append) is None and len(notes) == 1
    with Reader(old_store) as r:
        assert r.runs()


def test_reindex_of_a_path_that_is_not_a_store_is_a_one_line_error(tmp_path: Path) -> None:
    foreign = tmp_path / "photos.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE photos (id INTEGER)")
    conn.commit()
    conn.close()
    before = foreign.read_bytes()
    p = _cli("reindex", "--store", foreign)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "not a compdiag store" in p.stderr
    assert foreign.read_bytes() == before
    p = _cli("reindex", "--store", tmp_path / "missing.db")
    assert p.returncode == 2 and "no store at" in p.stderr
    assert not (tmp_path / "missing.db").exists()


def _upgrade(path: str) -> None:
    ensure_current(path)


def test_ranks_upgrading_one_store_at_once_derive_each_fact_once(old_store: Path,
                                                                 tmp_path: Path) -> None:
    """Ranks of one job may open the same older store together: one upgrades it, the others
    find it current; no fact is derived twice."""
    import multiprocessing

    alone = tmp_path / "alone.db"
    alone.write_bytes(old_store.read_bytes())
    reindex(alone)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_upgrade, args=(str(old_store),)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    assert _tables(old_store) == _tables(alone)
