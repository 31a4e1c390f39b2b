"""Capture's own time in the program (issue 34): counted once per outermost hook, stored on
the run when the program ends, shown by `show` and `show --json`."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

from rich.console import Console

from compdiag.capture.self_time import SelfTime
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer
from compdiag.views.show import print_show, show_document


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_hook_inside_a_hook_counts_once_and_other_threads_count_too() -> None:
    st = SelfTime()
    st.call(lambda: (st.call(_burn, 0.05), _burn(0.05)))  # nested: counted by the outer call
    assert 0.1 <= st.cpu_s < 0.15, st.cpu_s
    flush = st.wrap(lambda: _burn(0.05))  # the store writer's timer thread
    t = threading.Thread(target=flush)
    t.start()
    t.join()
    assert 0.15 <= st.cpu_s < 0.22, st.cpu_s
    _burn(0.05)  # the program's own time is not compdiag's
    assert st.cpu_s < 0.22
    facts = st.facts()
    assert facts["capture_cpu_s"] == round(st.cpu_s, 6) and facts["cpu_s"] >= 0.2


def test_torch_building_a_trace_record_is_counted_as_cpu_less_the_handler() -> None:
    """A record runs from torch's `if trace_log.handlers:` to its overhead call; what
    compdiag's handler took inside is counted once, as compdiag's."""
    import logging

    import torch._logging._internal as internal

    trace_log = logging.getLogger("torch.__trace")
    before_fn, before_handlers = internal.add_structured_logging_overhead, trace_log.handlers
    st = SelfTime()
    try:
        st.install_trace_timer()
        bool(trace_log.handlers)  # torch's `if trace_log.handlers:` marks the record's start
        _burn(0.05)  # torch building the payload
        st.call(_burn, 0.03, trace=True)  # compdiag's handler
        internal.add_structured_logging_overhead(123.0)  # torch's wall figure is not used
        internal.add_structured_logging_overhead(1.0)  # no record open: nothing counted
    finally:
        internal.add_structured_logging_overhead = before_fn
        trace_log.handlers = before_handlers
    assert 0.05 <= st.trace_s < 0.07, st.trace_s
    assert 0.03 <= st.cpu_s < 0.05, st.cpu_s


def test_a_run_capture_time_is_stored_and_shown(tmp_path: Path) -> None:
    """The figures the child writes at exit (child._finish: SelfTime.facts()) are what show
    and show --json report, as seconds and as a share of the program's CPU time."""
    store = tmp_path / "s.db"
    w = Writer(store)
    run = w.begin_run(source="run", argv=["prog.py"])
    w.update_run(run, capture_cpu_s=0.3, capture_trace_s=0.1, cpu_s=20.0)
    w.insert("records", run_id=run, seq=1, kind="dynamo_start", compile_id="0/0",
             metadata="{}", payload="x" * 4000)
    w.end_run(run, exit_code=0, status="done")
    w.close()
    with Reader(store) as r:
        doc = show_document(r, run)
    assert doc["capture"] == {"seconds": 0.4, "share": 0.02, "compdiag_cpu_s": 0.3,
                              "torch_trace_s": 0.1, "run_cpu_s": 20.0}
    assert doc["store_size"]["records_raw_bytes"] == 4002
    assert doc["store_size"]["ratio"] < 0.1
    out = io.StringIO()
    print_show(doc, Console(file=out, width=200))
    text = out.getvalue()
    assert "capture 0.40 s = 2.0% of the program's 20.0 s CPU" in text, text
    assert "(0.0" in text and "MB raw" in text
