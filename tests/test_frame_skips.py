"""A compiled call Dynamo declined to trace at all is never silent (issue 29 §3). set10's
flops_first_batch_skip (PR pytorch#186085): a model compiled and first called under
FlopCounterMode runs in eager for good, with no compile, no graph break and no log line above
DEBUG; on main before this test, explain said "no problems found" for it. Capture now keeps
torch's skip reason (convert_frame's add_skip_reason) with the user's call."""

from __future__ import annotations

import inspect
import sys
import types

from compdiag.analyses.explain import explain
from compdiag.capture import frame_skips
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer
from cdtest import FakeCapture

DISPATCH = "non-infra torch dispatch mode present, this is not supported today in torch.compile"


def _store(tmp_path, monkeypatch, reasons):
    from torch._dynamo import convert_frame

    got = []
    monkeypatch.setattr(convert_frame, "add_skip_reason", lambda r, f: got.append(r))
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    ing = Ingestor(w, rid)
    here = {"filename": __file__, "lineno": inspect.currentframe().f_back.f_lineno,
            "name": "test", "line": "compiled(x)"}
    frame_skips.install(FakeCapture(ing), lambda: here)
    frame = sys._getframe()
    for reason in reasons:
        convert_frame.add_skip_reason(reason, frame)
    ing.flush()
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    assert got == reasons  # torch's own bookkeeping still runs
    return rid, here


def test_a_call_under_a_dispatch_mode_is_a_skipped_frame_at_the_call(tmp_path, monkeypatch):
    rid, here = _store(tmp_path, monkeypatch, [DISPATCH, DISPATCH])
    with Reader(tmp_path / "s.db") as r:
        diags = explain(r, rid)
    (d,) = [d for d in diags if d.kind == "graph_break"]
    assert "dispatch mode" in d.reason and d.user_frame.lineno == here["lineno"], d
    assert "FlopCounterMode" in d.fix and d.count == 1  # the same call's skips once


def test_routine_skips_are_not_news(tmp_path, monkeypatch):
    rid, _ = _store(tmp_path, monkeypatch, ["frame is in the Dynamo skipfiles list",
                                            "no tensor-related objects found in frame",
                                            "tracing is non-recursively disabled for this frame"])
    with Reader(tmp_path / "s.db") as r:
        assert list(r.graph_breaks(rid)) == []


def test_a_torch_without_the_function_is_left_alone(monkeypatch):
    from torch._dynamo import convert_frame

    monkeypatch.delattr(convert_frame, "add_skip_reason", raising=False)
    frame_skips.install(FakeCapture(types.SimpleNamespace()), lambda: None)
    assert not hasattr(convert_frame, "add_skip_reason")


def test_a_compiled_generator_is_a_skipped_frame_with_the_error_dynamo_suppressed(
        tmp_path, monkeypatch):
    """set12 compiled_generator_loop (pytorch#126360): torch.compile of a generator function
    compiles nothing; Dynamo raises "Attempt to trace generator" before any compile starts,
    suppresses it and skips the frame ("an error was suppressed during compilation"), with no
    trace record and no graph break. On main explain said "no problems found" (0 compiles).
    Now the suppressed error, in torch's words with its hint, is a skipped frame at the call;
    an error raised inside a compile (it has a compile id) is left to the trace's records."""
    import torch
    from torch._dynamo import convert_frame

    # whatever install patches, monkeypatch puts back
    monkeypatch.setattr(convert_frame, "add_skip_reason", convert_frame.add_skip_reason)
    monkeypatch.setattr(convert_frame, "format_error_msg", convert_frame.format_error_msg)
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    ing = Ingestor(w, rid)
    here = {"filename": __file__, "lineno": 1, "name": "test", "line": "steps(3)"}
    frame_skips.install(FakeCapture(ing), lambda: here)

    def steps(n):
        for i in range(n):
            yield torch.ones(2) * i

    torch._dynamo.reset()
    assert [float(t.sum()) for t in torch.compile(steps, backend="eager")(3)] == [0.0, 2.0, 4.0]
    torch._dynamo.reset()
    ing.flush()
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        (d,) = [d for d in explain(r, rid) if d.kind == "graph_break"]
    assert "Attempt to trace generator" in d.reason and "Hint:" in d.reason, d.reason
    assert d.user_frame.lineno == 1 and ".." not in d.explanation
