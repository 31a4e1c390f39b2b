"""torch's trace records and artifact-logger lines reach compdiag's handler without logging's
LogRecord while compdiag is the only listener (capture/direct_log.py, issue 34), and through
logging's own path as soon as anyone else listens."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from compdiag.capture import direct_log


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def made(monkeypatch):
    """How many LogRecords logging built."""
    count = [0]
    original = logging.Logger.makeRecord

    def make_record(self, *args, **kwargs):
        count[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(logging.Logger, "makeRecord", make_record)
    return count


def _logger(name: str, handler: logging.Handler) -> logging.Logger:
    log = logging.getLogger(name)
    log.handlers, log.filters = [handler], []
    log.setLevel(logging.DEBUG)
    log.propagate = False
    return log


def test_the_only_handler_gets_the_record_without_a_log_record(made) -> None:
    keep = _Keep()
    log = _logger("compdiag.test.direct.only", keep)
    direct_log.install(log, keep)
    try:
        log.debug("fusing %s with %s", "op1", "op2")
        log.debug("", extra={"metadata": {"dynamo_start": {}}, "payload": "x"}, stacklevel=2)
        log.debug("%(a)s!", {"a": "mapping"})
    finally:
        direct_log.uninstall(log)
    assert made[0] == 0
    first, second, third = keep.records
    assert first.getMessage() == "fusing op1 with op2" and first.name == log.name
    assert first.levelname == "DEBUG"
    assert second.metadata == {"dynamo_start": {}} and second.payload == "x"
    assert third.getMessage() == "mapping!"


@pytest.mark.parametrize("other", ["second handler", "propagates", "filter", "level",
                                   "exc_info", "disabled"])
def test_anyone_else_listening_gets_logging_s_own_path(made, other) -> None:
    keep, theirs = _Keep(), _Keep()
    log = _logger(f"compdiag.test.direct.{other.replace(' ', '_')}", keep)
    direct_log.install(log, keep)
    try:
        if other == "second handler":  # TORCH_TRACE's own handler, added later
            log.addHandler(theirs)
        elif other == "propagates":  # the user's TORCH_LOGS turned the artifact on
            log.propagate = True
        elif other == "filter":
            log.addFilter(lambda r: True)
        elif other == "level":
            log.setLevel(logging.INFO)
        elif other == "disabled":
            logging.disable(logging.DEBUG)
        log.debug("line %d", 1, **({"exc_info": False} if other == "exc_info" else {}))
    finally:
        logging.disable(logging.NOTSET)
        direct_log.uninstall(log)
        log.propagate = False
    if other in ("level", "disabled"):
        assert keep.records == [] and made[0] == 0
        return
    assert made[0] == 1 and isinstance(keep.records[0], logging.LogRecord)
    assert keep.records[0].getMessage() == "line 1"
    if other == "second handler":
        assert theirs.records == keep.records


def test_capture_s_trace_handler_takes_torch_s_records_directly(tmp_path: Path, made) -> None:
    """Regression (issue 34): every structured-trace record made logging find its caller and
    build a LogRecord for compdiag's handler, the only one listening (fails before
    direct_log: one LogRecord per record)."""
    import torch._logging._internal as internal

    from compdiag.capture.hooks import Capture
    from compdiag.ingest.ingestor import Ingestor
    from compdiag.store.reader import Reader
    from compdiag.store.writer import Writer

    trace_log = logging.getLogger("torch.__trace")
    before = (list(trace_log.handlers), trace_log.level, trace_log.propagate,
              internal._init_logs)
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["p.py"])
    cap = Capture(Ingestor(w, rid))
    try:
        # torch's own LazyTraceHandler drops itself at the first record when TORCH_TRACE is
        # not set: a program's capture has its handler alone from then on
        trace_log.handlers = []
        cap._install_trace()
        internal.trace_structured("str", lambda: ("hello", 7), expect_trace_id=False)
        internal.trace_structured("artifact", lambda: {"name": "x", "encoding": "string"},
                                  payload_fn=lambda: "some text", expect_trace_id=False)
    finally:
        trace_log.handlers, internal._init_logs = before[0], before[3]
        trace_log.setLevel(before[1])
        trace_log.propagate = before[2]
        direct_log.uninstall(trace_log)
    cap.drain()  # the records wait in the capture's backlog until a tick, a hook or exit
    w.close()
    assert made[0] == 0
    with Reader(w.path) as r:
        kinds = [row[0] for row in r.conn.execute(
            "SELECT kind FROM records WHERE run_id = ? ORDER BY seq", (rid,))]
    assert kinds == ["str", "artifact:x"]


def test_a_route_left_for_an_earlier_handler_is_replaced(made) -> None:
    """Regression: install() was idempotent per logger, so a capture installed earlier in the
    same process and never uninstalled left a route bound to its own handler, and every record
    for the new handler took logging's own path (CI failed on
    test_capture_s_trace_handler_takes_torch_s_records_directly after such a test ran first
    in its worker)."""
    old, new = _Keep(), _Keep()
    log = _logger("compdiag.test.direct.replaced", old)
    direct_log.install(log, old)
    log.handlers = [new]
    direct_log.install(log, new)
    try:
        log.debug("to %s", "new")
    finally:
        direct_log.uninstall(log)
    assert made[0] == 0
    assert [r.getMessage() for r in new.records] == ["to new"] and not old.records
