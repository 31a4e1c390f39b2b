"""An import's writes in a second process (compdiag/importer/writer_pipe.py, issue 34's import
speed): the store it leaves is the one an in-process import leaves, row for row, and a write
that fails in the writer process fails the import in one line and leaves no run. Trace-shaped
records, no compile."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from compdiag.importer import trace_log
from compdiag.importer.trace_log import ImportError_, import_trace
from compdiag.importer.writer_pipe import BATCH_CALLS, BATCH_CHARS, PipedWriter, WriteFailed
from compdiag.store.writer import Writer


def _line(md: dict) -> str:
    return f"V1202 08:00:00.000000 1 torch/_logging/x.py:1] {json.dumps(md)}"


def _log(path: Path, frames: int = BATCH_CALLS // 4 + 3, big: bool = True) -> Path:
    """A log of more records than a batch holds and a payload larger than a batch's text:
    compiles, a cache lookup with key components, chromium events."""
    lines = []
    for frame in range(frames):
        ids = {"frame_id": frame, "frame_compile_id": 0, "attempt": 0}
        lines.append(_line({"dynamo_start": {"stack": [
            {"line": 3, "name": "f", "filename": 1}]}, **ids}))
        lines.append(_line({"str": ["model.py", 1]}))
        comps = [f"[h{i}] inductor_config[opt{i}]: {frame if i == 0 else 'x' * 40}"
                 for i in range(20)]
        lines.append(_line({"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"},
                            "has_payload": True, **ids}))
        lines.append("\t" + json.dumps({"key": f"k{frame}", "components": comps}))
        lines.append(_line({"chromium_event": {}, "has_payload": True, **ids}))
        lines.append("\t" + json.dumps({"name": "dynamo", "ph": "B", "ts": frame * 10,
                                        "pid": 0, "args": {}}))
        lines.append(_line({"compilation_metrics": {"co_name": "f", "co_filename": "model.py",
                                                    "co_firstlineno": 3}, **ids}))
    text = "\n".join(f"line {i} " + "y" * 60 for i in range(BATCH_CHARS // 60 + 10 if big else 3))
    lines.append(_line({"artifact": {"name": "big_text", "encoding": "string"},
                        "frame_id": 0, "frame_compile_id": 0, "attempt": 0,
                        "has_payload": True}))
    lines += ["\t" + ln for ln in text.splitlines()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _tables(store: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(store) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
                 if r[0] not in ("runs", "meta", "sqlite_sequence")]
        out = {n: sorted(map(repr, conn.execute(f"SELECT * FROM {n}"))) for n in names}
        out["runs"] = [r for r in conn.execute("SELECT id, status, exit_code FROM runs")]
    return out


def test_a_piped_import_stores_what_an_in_process_one_does(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    log = _log(tmp_path / "trace.log")
    stores = {}
    for cpus in (1, 2):            # 1 CPU: in-process; 2 CPUs: the writes in a child
        monkeypatch.setattr(trace_log.os, "cpu_count", lambda n=cpus: n)
        stores[cpus] = tmp_path / f"cpus{cpus}.db"
        [result] = import_trace(stores[cpus], log)
        assert result.run_id == 1 and not result.skipped
    one, two = _tables(stores[1]), _tables(stores[2])
    assert one == two
    assert len(one["cache_keys"]) == BATCH_CALLS // 4 + 3  # one row a lookup, 20 components
    assert one["runs"] == [(1, "imported", None)]


def test_a_write_that_fails_in_the_writer_process_fails_the_import_and_keeps_no_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _log(tmp_path / "trace.log")
    monkeypatch.setattr(trace_log.os, "cpu_count", lambda: 2)
    real = Writer.insert

    def broken(self, table, **cols):  # the child is forked: it inherits this patch
        if table == "cache_keys":
            raise sqlite3.OperationalError("disk I/O error")
        return real(self, table, **cols)

    monkeypatch.setattr(Writer, "insert", broken)
    store = tmp_path / "s.db"
    with pytest.raises(ImportError_, match="could not be written.*disk I/O error"):
        import_trace(store, log)
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0


def test_piped_writer_reports_the_first_failure_and_applies_later_writes(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    w = Writer(store)
    run_id = w.begin_run(source="import", argv=["x"])
    w.close()
    p = PipedWriter(store)
    p.warn(run_id, "before")
    p.flush()
    p.insert("no_such_table", run_id=run_id)
    p.flush()                   # fails in the child: this transaction is dropped, as in-process
    p.warn(run_id, "after")
    with pytest.raises(WriteFailed, match="no_such_table"):
        p.close()
    with sqlite3.connect(store) as conn:
        assert [m for (m,) in conn.execute("SELECT message FROM warnings")] == ["before",
                                                                                "after"]
    with pytest.raises(AttributeError):
        p.conn  # noqa: B018 - nothing but the write methods is forwarded


def test_bench_import_smoke(tmp_path: Path) -> None:
    """benchmarks/bench_import.py's smoke: one round on a small log (checks no figure)."""
    import shutil
    import subprocess
    import sys

    repo = Path(__file__).resolve().parent.parent
    tlparse = Path(sys.executable).parent / "tlparse"
    if not tlparse.exists() and shutil.which("tlparse") is None:
        pytest.skip("no tlparse (pip install -e '.[dev]')")
    log = _log(tmp_path / "trace.log", frames=5, big=False)
    p = subprocess.run([sys.executable, str(repo / "benchmarks" / "bench_import.py"), "--trace",
                        str(log), "--rounds", "1"], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    assert "compdiag import / tlparse:" in p.stdout


def test_bench_ranks_smoke(tmp_path: Path) -> None:
    """benchmarks/ranks/run.py's smoke: a small 8-rank directory made from two trace-shaped
    rank logs (no torchrun, no compile), one round (checks no figure)."""
    import shutil
    import subprocess
    import sys

    repo = Path(__file__).resolve().parent.parent
    if not (Path(sys.executable).parent / "tlparse").exists() and shutil.which("tlparse") is None:
        pytest.skip("no tlparse (pip install -e '.[dev]')")
    source = tmp_path / "source"
    source.mkdir()
    for rank in (0, 1):
        log = _log(tmp_path / f"r{rank}.log", frames=4, big=False)
        text = log.read_text(encoding="utf-8")
        text = text.replace('"frame_id"', f'"rank": {rank}, "frame_id"')
        (source / f"dedicated_log_torch_trace_rank_{rank}_x.log").write_text(text, "utf-8")
    p = subprocess.run([sys.executable, str(repo / "benchmarks" / "ranks" / "run.py"),
                        "--source", str(source), "--mb", "0.2", "--rounds", "1"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    assert "compdiag import / tlparse --all-ranks-html:" in p.stdout
    assert "8 runs, 8 ranks" in p.stdout
