"""Capture's own time in the program (issue 34): counted once per outermost hook, stored on
the run when the program ends, shown by `show` and `show --json`."""

from __future__ import annotations

import io
import json
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


# -- what capture's own time was cut by (issue 34; each fails on the code before its cut) ------
def _candidate(name: str, line: int) -> str:
    """A fusion-candidate entry as the fusion logger prints it (torch 2.13 CPU)."""
    return (f"  SchedulerNode(name='{name}'), Pointwise(['[4, 32]', 'origins=OrderedSet([add])',"
            f" 'stack_traces = {{', '  File \"/tmp/m.py\", line {line}, in f', '    y = x + 1',"
            " '}'])")


def test_a_repeated_fusion_candidate_entry_is_parsed_once(tmp_path: Path, monkeypatch) -> None:
    """Every round of fusion lists every node again, mostly unchanged: an entry identical to
    the node's last one is not parsed again (on the code before, each of the 7 entries was),
    and the records kept are the same: one per change (A, B, A again)."""
    from compdiag.ingest import own_records
    from compdiag.ingest.ingestor import Ingestor

    parsed = []
    real = own_records.P.scheduler_node
    monkeypatch.setattr(own_records.P, "scheduler_node",
                        lambda msg: parsed.append(msg) or real(msg))
    w = Writer(tmp_path / "s.db")
    ing = Ingestor(w, w.begin_run(source="run", argv=["x"]))
    a, b = _candidate("op0", 3), _candidate("op0", 4)
    for msg in (a, a, a, a, b, b, a):
        ing.scheduler_node_line("0/0", msg)
    ing.flush()
    w.close()
    assert parsed == [a, b, a]
    with Reader(tmp_path / "s.db") as r:
        kept = [rec["payload"] for rec in r.records(1, kind="compdiag:sched_node")]
    assert [json.loads(p)["frames"][0]["lineno"] for p in kept] == [3, 4, 3]


def test_a_compile_id_text_is_parsed_once(monkeypatch) -> None:
    """Every record of a capture names its compile: each text is parsed once (on the code
    before, once per record), the ids and keys being the same."""
    from compdiag.formats import compile_id as C
    from compdiag.ingest.generations import Generations

    C._of_text.cache_clear()
    texts = []
    real = C.CompileId.parse.__func__
    monkeypatch.setattr(C.CompileId, "parse",
                        classmethod(lambda cls, t: texts.append(t) or real(cls, t)))
    gens = Generations()
    keys = [gens.qualify("1/2_1", starts=i == 0) for i in range(50)]
    assert keys == ["1/2_1"] * 50 and texts == ["1/2_1"]
    gens.reset()
    assert gens.qualify("1/2_1") == "1/2_1@1" and texts == ["1/2_1"]
    assert C.CompileId.of("1/2_1@1") == C.CompileId(1, 2, attempt=1, generation=1)
    assert C.CompileId.of("no id") is None and C.CompileId.of("") is None


def test_a_small_text_is_packed_in_a_window_its_size(monkeypatch) -> None:
    """A few hundred bytes packed with the 4 KB preset dictionary need an 8 KiB window, not
    deflate's largest with memLevel 9 (on the code before: -15 and 9, a compressor whose
    set-up cost ten times the compression); it reads back the same, as do large texts."""
    import zlib

    from compdiag.store import blobs

    made = []
    real = zlib.compressobj
    blobs._primed.cache_clear()  # the primed compressor pack() copies is made once a window
    monkeypatch.setattr(blobs.zlib, "compressobj",
                        lambda *a: made.append(a[2:4]) or real(*a))
    text = json.dumps({"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0,
                       "attempt": 0, "has_payload": "0123456789abcdef"})
    packed = blobs.pack(text)
    assert packed is not None and blobs.decode(blobs.ZDICT, packed) == text
    assert made == [(-13, 2)]  # memLevel 2: a copy of it is cheap (issue 34, round 12)
    big = "".join(f"line {i}: {i * i}\n" for i in range(6000))
    size, codec, data, delta = blobs.encode_deflate(big, big[::-1])
    assert blobs.decode(codec, data, blobs.ZLIB, zlib.compress(big[::-1].encode())) == big
    assert made[-1] == (-15, 9)  # a delta against a 32 KiB base keeps deflate's whole window


def test_text_torch_builds_for_a_logger_compdiag_turned_on_is_counted_once() -> None:
    """The fusion logger's candidate texts (debug_str_short, built before the logger is
    called) are torch's work for compdiag: counted with the trace records' share, a fused
    node's text (which builds its nodes' texts) once, and not again inside a compdiag hook."""
    st = SelfTime()
    inner = st.count_torch_work(lambda: _burn(0.03))
    outer = st.count_torch_work(lambda: (_burn(0.02), inner()))
    outer()
    assert 0.05 <= st.trace_s < 0.07 and st.cpu_s == 0, (st.trace_s, st.cpu_s)
    st.call(inner)  # inside a hook: the hook's time
    assert 0.05 <= st.trace_s < 0.07 and 0.03 <= st.cpu_s < 0.05, (st.trace_s, st.cpu_s)


def test_a_garbage_collection_inside_a_hook_is_not_capture_s_time() -> None:
    """A full pass of Python's cyclic GC runs in whatever code allocates when its threshold
    is passed; one that started inside a hook made that run's figure jump by its whole
    length (0.3 s a pass in a compiling process). Fails before the GC passes were taken
    out: the hook counted the collection as well."""
    import gc

    junk = [[i] for i in range(1_500_000)]  # objects the collector walks
    for a, b in zip(junk, junk[1:]):
        a.append(b)
    st = SelfTime()
    try:
        c0 = time.thread_time()
        gc.collect()
        collect_s = time.thread_time() - c0
        st.call(lambda: (gc.collect(), _burn(0.02)))
    finally:
        del junk
    assert collect_s > 0.05, collect_s  # a pass long enough to tell apart
    assert 0.02 <= st.cpu_s < 0.02 + collect_s / 2, (st.cpu_s, collect_s)


def test_the_run_process_own_cpu_is_counted(tmp_path: Path) -> None:
    """Regression (issue 34, the tree's CPU ratio against the in-process figure): the
    `compdiag run` process's own CPU (its imports, the store, the stderr relay) is capture's
    cost too, and the program's counter cannot see it; the parent adds it to the figure the
    program wrote. A run whose program counted nothing (capture disabled) stays without one.
    Fails before the fix: the parent added nothing (runner.count_own_cpu did not exist)."""
    import resource

    from compdiag.capture.runner import count_own_cpu

    store = tmp_path / "s.db"
    w = Writer(store)
    counted = w.begin_run(source="run", argv=["prog.py"])
    w.update_run(counted, capture_cpu_s=0.3, capture_trace_s=0.1, cpu_s=20.0)
    uncounted = w.begin_run(source="run", argv=["prog.py"])
    me = resource.getrusage(resource.RUSAGE_SELF)
    count_own_cpu(w, counted)
    count_own_cpu(w, uncounted)
    w.close()
    with Reader(store) as r:
        runs = {run["id"]: run for run in r.runs()}
    assert runs[counted]["capture_cpu_s"] >= 0.3 + me.ru_utime + me.ru_stime - 1e-6
    assert runs[counted]["capture_trace_s"] == 0.1 and runs[counted]["cpu_s"] == 20.0
    assert runs[uncounted]["capture_cpu_s"] is None


def test_compdiag_run_starts_light_and_the_child_counts_all_of_compdiag() -> None:
    """Regression (issue 34, capture's uncounted CPU): the `compdiag run` process imported the
    whole Ingestor (every parser, ~35 ms CPU a run) only for reindex's store-version check;
    and the child imported compdiag's failure recording (and with it the ingest parsers)
    before capture's counter started, so that part of its start was nobody's. Both fail on
    the code before the fix."""
    import subprocess
    import sys

    code = ("import sys; import compdiag.capture.{}; "
            "print(sorted(m for m in sys.modules if m.startswith('compdiag.')))")
    parent = subprocess.run([sys.executable, "-c", code.format("runner")], capture_output=True,
                            text=True, check=True).stdout
    assert "compdiag.ingest.ingestor" not in parent, parent
    child = subprocess.run([sys.executable, "-c", code.format("child")], capture_output=True,
                           text=True, check=True).stdout
    assert child.strip() == "['compdiag.capture', 'compdiag.capture.child']", child


def test_compdiag_run_parent_imports_no_parser_and_no_reader() -> None:
    """Regression (issue 34, session 12): the `compdiag run` process still compiled the
    ingest parsers' ~90 regexes (reindex imported them at module level for an old store's
    backfill), imported the store's reader (the package's __init__ imported every module of
    it) and dataclasses with inspect, ast and dis (reindex's result type): ~40 ms of CPU a
    run, before the program starts. Fails on the code before the fix: the parsers, the
    reader and dataclasses were all in sys.modules."""
    import subprocess
    import sys

    code = ("import sys; import compdiag.cli, compdiag.commands.run, compdiag.capture.runner, "
            "compdiag.capture.preflight; print(sorted(m for m in sys.modules "
            "if m.startswith('compdiag.') or m in ('dataclasses', 'inspect')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout
    assert "compdiag.ingest.parsers" not in loaded, loaded
    assert "compdiag.ingest.parse_dynamo" not in loaded, loaded
    assert "compdiag.store.reader" not in loaded, loaded
    assert "'dataclasses'" not in loaded, loaded
