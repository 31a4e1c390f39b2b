"""The store at half the TORCH_TRACE log (issue 34, store size): what store/blobs.py and
store/schema.py do to get there, each read back exactly as it was written.

The figures themselves are benchmarks/bench_store_size.py's (docs/capture.md); its smoke runs
here, and checks no figure."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import subprocess
import zlib
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdtest import REPO
from compdiag.store import blobs
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8", "surrogatepass")).hexdigest()


def _config(rng: random.Random, n: int = 1300) -> dict[str, object]:
    """Something like the inductor config in compilation_metrics' envelope: many keys, values
    that do not compress to nothing."""
    return {f"opt_{i}_{rng.getrandbits(40):x}": rng.choice([True, False, None, rng.random()])
            for i in range(n)}


def test_a_text_like_a_base_longer_than_the_window_costs_what_differs(tmp_path: Path) -> None:
    """Regression (issue 34): compilation_metrics' envelope (~38 KB: the whole inductor
    config) repeats at every compile with a few values changed, but a delta against the first
    one only reached its last 32 KiB (deflate's window), so each later one cost its whole
    zlib size (~10 KB) again. In pieces against the same offsets of the base it costs what
    differs."""
    rng = random.Random(0)
    config = _config(rng)
    first = json.dumps({"compilation_metrics": {"compile_id": "0/0", "start_time": 1.5,
                                                "inductor_config": config}})
    config["opt_7"] = 3
    later = json.dumps({"compilation_metrics": {"compile_id": "0/1", "start_time": 2.75,
                                                "inductor_config": config}})
    assert len(first) > 1.1 * blobs.WINDOW
    store = tmp_path / "s.db"
    w = Writer(store)
    run = w.begin_run(source="run", argv=["x.py"])
    for seq, (cid, text) in enumerate((("0/0", first), ("0/1", later)), 1):
        w.insert("records", run_id=run, seq=seq, kind="compilation_metrics", compile_id=cid,
                 metadata=text, payload=None)
    w.close()
    with Reader(store) as r:
        assert [rec["metadata"] for rec in r.records(run)] == [json.loads(first),
                                                              json.loads(later)]
        (base, zlib_size), (codec, delta_size) = r.conn.execute(
            "SELECT codec, length(data) FROM blobs ORDER BY id").fetchall()
    assert base == blobs.ZSTD and codec == blobs.ZSTD_DELTA
    assert delta_size < zlib_size / 10, (delta_size, zlib_size)


def test_a_large_text_is_compressed_once_and_older_codecs_still_read(tmp_path: Path) -> None:
    """Regression (issue 34, import speed): each large text was deflated twice or more (with
    the preset dictionary, as a delta, in pieces past the window) to keep the smaller; zstd's
    delta reaches the whole base in one pass. The deflate codecs of older stores still read."""
    rng = random.Random(1)
    base = json.dumps(_config(rng))
    text = base[:len(base) // 2] + '"opt_7": 3, ' + base[len(base) // 2:]
    calls = []
    real = blobs._zstd_compressor

    class Counting:
        def __init__(self, inner):
            self.inner = inner

        def compress(self, *a):
            calls.append(1)
            return self.inner.compress(*a)

    blobs._zstd_compressor = lambda b: Counting(real(b))
    try:
        size, codec, data, delta = blobs.encode(text, base)
    finally:
        blobs._zstd_compressor = real
    assert (codec, delta, len(calls)) == (blobs.ZSTD_DELTA, True, 1)
    assert len(data) < len(zlib.compress(base.encode())) / 20, len(data)
    b_size, b_codec, b_data, _ = blobs.encode(base)
    assert blobs.decode(codec, data, b_codec, b_data) == text
    # what the deflate writer stored reads back through the same decode
    old_base = blobs.encode_deflate(base)
    old = blobs.encode_deflate(text, base)
    assert old[1] == blobs.CHUNKED and old_base[1] == blobs.ZDICT
    assert blobs.decode(old[1], old[2], old_base[1], old_base[2]) == text


@settings(max_examples=30, deadline=None)
@given(st.text(min_size=1, max_size=3000), st.text(max_size=300))
def test_chunked_delta_round_trips(text: str, base_text: str) -> None:
    """Any text against any base longer than the window (a piece may end inside a UTF-8
    character: the pieces are joined before decoding)."""
    base = (base_text or "x") * (blobs.WINDOW // max(1, len(base_text or "x")) + 2)
    long_text = text * (blobs.CHUNK * 2 // len(text) + 1)
    data = blobs._deflate_chunks(long_text.encode("utf-8", "surrogatepass"),
                                 base.encode("utf-8", "surrogatepass"))
    raw = blobs._inflate_chunks(data, base.encode("utf-8", "surrogatepass"))
    assert raw == long_text.encode("utf-8", "surrogatepass")


def _event(i: int) -> tuple[dict[str, object], str]:
    payload = json.dumps({"name": f"pass_{i % 7}", "ts": 1796202454185926.2 + i,
                          "args": {"compile_id": f"0/{i % 3}"}, "ph": "BE"[i % 2],
                          "cat": "dynamo_timed", "tid": 0, "pid": 0}, indent=0)
    md = {"chromium_event": {}, "frame_id": 0, "frame_compile_id": i % 3, "attempt": 0,
          "has_payload": _md5(payload)}
    return md, payload


def test_has_payload_is_left_out_of_the_stored_envelope_and_put_back(tmp_path: Path) -> None:
    """Regression (issue 34): torch's envelope names its payload's md5 (32 hex digits, a third
    of a chromium event's compressed bytes). It is stored as the payload alone says it, and
    every read path gives the envelope back whole."""
    store = tmp_path / "s.db"
    w = Writer(store)
    run = w.begin_run(source="run", argv=["x.py"])
    events = [_event(i) for i in range(40)]
    bad = ({"artifact": {"name": "x"}, "has_payload": "0" * 32}, "not that")
    own = ({"compdiag": {"kind": "warning"}}, "a payload with no has_payload")
    big_text = "x" * (blobs.MAX_HASHED + 1)  # its md5 is not worth one at every read
    big = ({"artifact": {"name": "y"}, "has_payload": _md5(big_text)}, big_text)
    for seq, (md, payload) in enumerate([*events, bad, own, big], 1):
        w.insert("records", run_id=run, seq=seq, kind="k", compile_id=None,
                 metadata=json.dumps(md), payload=payload)
    w.close()
    want = [md for md, _ in [*events, bad, own, big]]
    with Reader(store) as r:
        assert [x["metadata"] for x in r.records(run)] == want
        assert [x["metadata"] for x in r.records(run, with_payload=False)] == want
        assert [x["id"] for x in r.search(run, events[7][0]["has_payload"])] == [8]
        assert [x["id"] for x in r.search(run, "0" * 32)] == [41]
        stored = [row[0] for row in r.conn.execute(
            f"SELECT {blobs.text_sql('records', 'metadata')} FROM records ORDER BY seq")]
        flags = [row[0] for row in r.conn.execute(
            f"SELECT {blobs.HASH_FLAG} FROM records ORDER BY seq")]
        size = r.record_bytes(run)
    assert flags == [1] * 40 + [None, None, None]
    assert not any("has_payload" in text for text in stored[:40])
    assert json.loads(stored[40]) == bad[0]  # not the payload's md5: kept as it was
    assert json.loads(stored[42]) == big[0]  # a large payload's: kept as it was
    raw = sum(len(json.dumps(md)) + len(p) for md, p in [*events, bad, own, big])
    assert size["raw"] == raw  # the figure show prints counts the envelope whole


def test_the_trace_log_written_back_names_each_payload_md5(tmp_path: Path) -> None:
    """`compdiag report`'s trace log (importer/trace_writer.py) from such a store: each
    envelope with its has_payload, as torch wrote it."""
    from compdiag.importer.trace_writer import trace_entries

    store = tmp_path / "s.db"
    w = Writer(store)
    run = w.begin_run(source="run", argv=["x.py"])
    for seq in range(1, 4):
        md, payload = _event(seq)
        w.insert("records", run_id=run, seq=seq, kind="chromium_event", compile_id=None,
                 metadata=json.dumps(md), payload=payload)
    w.close()
    with Reader(store) as r:
        entries = list(trace_entries(r, run))
    assert [e.metadata for e in entries] == [_event(seq)[0] for seq in range(1, 4)]


def test_a_store_written_before_payload_md5_reads_as_it_is(tmp_path: Path) -> None:
    """A store with blobs but without the HASH_FLAG column (written by the compdiag before
    it) opens read-only and reads its envelopes as they were stored."""
    store = tmp_path / "s.db"
    w = Writer(store)
    run = w.begin_run(source="run", argv=["x.py"])
    md = {"artifact": {"name": "x"}, "has_payload": "f" * 32}
    w.insert("records", run_id=run, seq=1, kind="artifact:x", compile_id="0/0",
             metadata=json.dumps(md), payload="p" * 600)
    w.close()
    conn = sqlite3.connect(store)
    conn.execute(f"ALTER TABLE records DROP COLUMN {blobs.HASH_FLAG}")
    conn.close()
    with Reader(store) as r:
        (rec,) = r.records(run)
        assert rec["metadata"] == md and rec["payload"] == "p" * 600
        assert r.record_bytes(run)["raw"] == len(json.dumps(md)) + 600


def test_a_new_store_is_small(tmp_path: Path) -> None:
    """Regression (issue 34): an empty store was ~98 KB (1 KiB pages, each of its ~75 tables
    and indexes taking one at least, and the DDL's alignment kept in the file), a fifth of
    a small run's whole TORCH_TRACE log. 512-byte pages and the DDL's text in single spaces.
    (64,000 bytes at session 23's graph_breaks.hop column: the bound is 66 KB, far below the
    98 KB it guards against.)"""
    store = tmp_path / "s.db"
    Writer(store).close()
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 512
    assert "  " not in "".join(r[0] for r in conn.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))
    conn.close()
    assert store.stat().st_size < 66_000


@pytest.mark.slow
def test_bench_store_size_smoke(tmp_path: Path) -> None:
    """benchmarks/bench_store_size.py --smoke keeps working (CI checks no figure)."""
    p = subprocess.run([sys.executable, str(REPO / "benchmarks/bench_store_size.py"),
                        "--smoke"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "store/log" in p.stdout, p.stdout
