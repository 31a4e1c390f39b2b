"""torch's records and fusion lines wait in the capture's backlog and are ingested together,
in order with every other hook (hooks.Capture.defer, issue 34)."""

from __future__ import annotations

import time
from pathlib import Path

from compdiag.capture import hooks
from compdiag.capture.hooks import Capture
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer


def _capture(tmp_path: Path, **writer_kw) -> tuple[Capture, Writer, int]:
    w = Writer(tmp_path / "s.db", **writer_kw)
    rid = w.begin_run(source="run", argv=["p.py"])
    return Capture(Ingestor(w, rid)), w, rid


def _kinds(w: Writer, rid: int) -> list[str]:
    w.flush()
    with Reader(w.path) as r:
        return [row[0] for row in r.conn.execute(
            "SELECT kind FROM records WHERE run_id = ? ORDER BY seq", (rid,))]


def _str_record(n: int) -> dict:
    return {"str": [f"file{n}.py", n]}


def test_records_wait_and_are_ingested_in_order_before_the_next_hook(tmp_path: Path) -> None:
    """Regression (issue 34): each record was ingested inside torch's call, one at a time
    (fails before the backlog: the first record is in the store at once)."""
    cap, w, rid = _capture(tmp_path)
    cap.defer("trace record", cap.ing.record, _str_record(1), None)
    assert _kinds(w, rid) == []  # waiting
    cap.defer("trace record", cap.ing.record, _str_record(2), None)
    # another hook (the program's exception, the call stack, ...) sees what came before it
    cap.guarded("warning", cap.ing.event, "warning", None, {"category": "UserWarning"}, "w")
    cap.defer("trace record", cap.ing.record, _str_record(3), None)
    cap.drain()
    assert _kinds(w, rid) == ["str", "str", "compdiag:warning", "str"]
    w.close()


def test_a_full_backlog_is_ingested_at_once_and_a_fault_is_a_warning(tmp_path: Path) -> None:
    cap, w, rid = _capture(tmp_path)

    def broken(*args):
        raise ValueError("bad record")

    cap.defer("trace record", broken)
    for n in range(hooks.BACKLOG - 1):
        cap.defer("trace record", cap.ing.record, _str_record(n), None)
    assert len(_kinds(w, rid)) == hooks.BACKLOG - 1  # the one that failed is a warning
    with Reader(w.path) as r:
        warnings = [m for (m,) in r.conn.execute("SELECT message FROM warnings")]
    assert warnings == ["compdiag hook trace record failed: ValueError: bad record"]
    w.close()


def test_the_writer_s_timer_ingests_the_backlog(tmp_path: Path) -> None:
    """A program that stops compiling (or is SIGKILLed) has its last records in the store
    within a flush interval, as before the backlog."""
    cap, w, rid = _capture(tmp_path, background=True, flush_interval=0.05)
    cap.defer("trace record", cap.ing.record, _str_record(1), None)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _kinds(w, rid):
        time.sleep(0.05)
    assert _kinds(w, rid) == ["str"]
    w.close()


def test_nothing_waits_while_capture_is_paused(tmp_path: Path) -> None:
    cap, w, rid = _capture(tmp_path)
    with cap.paused():
        cap.defer("trace record", cap.ing.record, _str_record(1), None)
    cap.drain()
    assert _kinds(w, rid) == []
    w.close()


def test_a_compiles_rows_are_committed_when_it_ends(tmp_path: Path) -> None:
    """A compile's end (its compilation_metrics record) commits what capture holds, before
    its compiled code runs: a kernel that aborts the process natively leaves no chance to
    write after it, and the run's end is explained by the kernel rows. Caught: corpus
    end_abort_oob_index's store held no kernel (killed before the next flush) in 2 of 3
    idle runs. Another connection reads the rows without any flush of the test's."""
    import logging
    import sqlite3

    cap, w, rid = _capture(tmp_path, flush_interval=3600)
    cap._install_trace()
    try:
        record = logging.LogRecord("torch.__trace", logging.DEBUG, __file__, 1, "", (), None)
        record.metadata = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0,
                           "compilation_metrics": {"co_name": "f", "co_filename": "/u/f.py",
                                                   "co_firstlineno": 3}}
        record.payload = None
        cap._trace_handler.emit(record)
        other = sqlite3.connect(w.path)
        assert other.execute("SELECT count(*) FROM compiles WHERE run_id = ?",
                             (rid,)).fetchone()[0] == 1
        other.close()
    finally:
        logging.getLogger("torch.__trace").removeHandler(cap._trace_handler)
        w.close()
