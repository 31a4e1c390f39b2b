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


def test_torch_timing_of_a_trace_record_less_the_handler_is_torch_share() -> None:
    st = SelfTime()
    st.call(_burn, 0.02, trace=True)  # compdiag's handler inside a record torch times
    handler_wall = st._handler_wall
    assert handler_wall >= 0.02
    import torch._logging._internal as internal

    before = internal.add_structured_logging_overhead
    try:
        st.install_trace_timer()
        internal.add_structured_logging_overhead(handler_wall + 0.5)
    finally:
        internal.add_structured_logging_overhead = before
    assert abs(st.trace_s - 0.5) < 1e-6


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
