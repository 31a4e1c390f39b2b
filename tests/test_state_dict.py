"""A checkpoint loaded into torch.compile's wrapper (kind `state_dict`, issue 29 §4: where bugs
hide). probes30d finetune_strict_false: `compiled.load_state_dict(torch.load(...),
strict=False)` loaded none of the checkpoint's keys (the wrapper's carry `_orig_mod.`), the
program fine-tuned from random weights (accuracy 0.603 against 0.789 uncompiled), and explain
said "no problems found". Capture keeps such a load (capture/state_dict_loads.py); the kind
says it at its line. No compile is needed: the wrapper exists before the first call."""

from __future__ import annotations

import inspect

import pytest
import torch

from cdtest import FakeCapture
from compdiag.analyses.explain import explain
from compdiag.capture import state_dict_loads
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer


@pytest.fixture
def captured(tmp_path, monkeypatch):
    from torch._dynamo import eval_frame

    cls = eval_frame.OptimizedModule
    monkeypatch.setattr(cls, "load_state_dict", cls.load_state_dict)
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    ing = Ingestor(w, rid)

    def here():
        frame = inspect.currentframe()
        while not frame.f_code.co_name.startswith("test_"):
            frame = frame.f_back
        return {"filename": __file__, "lineno": frame.f_lineno, "name": "test", "line": None}

    state_dict_loads.install(FakeCapture(ing), here)

    def done():
        ing.flush()
        w.end_run(rid, exit_code=0, status="done")
        w.close()
        with Reader(tmp_path / "s.db") as r:
            return [d for d in explain(r, rid) if d.kind == "state_dict"]

    return done


def _model():
    return torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))


def test_a_plain_checkpoint_loaded_into_the_wrapper_non_strictly_is_said(captured):
    saved = _model().state_dict()
    model = _model()
    compiled = torch.compile(model, backend="eager")
    before = model[0].weight.detach().clone()
    result = compiled.load_state_dict(saved, strict=False)
    at = inspect.currentframe().f_lineno - 1
    assert torch.equal(model[0].weight, before)  # torch's behaviour this diagnoses
    assert len(result.unexpected_keys) == 4
    (d,) = captured()
    assert d.user_frame.lineno == at and "loaded 0 of 4 keys" in d.reason, d
    assert "_orig_mod." in d.reason and "._orig_mod.load_state_dict(" in d.fix


def test_a_strict_load_that_raises_is_said_and_still_raises(captured):
    compiled = torch.compile(_model(), backend="eager")
    with pytest.raises(RuntimeError, match="_orig_mod"):
        compiled.load_state_dict(_model().state_dict())
    (d,) = captured()
    assert d.reason.startswith("load_state_dict into the compiled wrapper failed")


def test_loads_that_match_are_not_said(captured):
    model = _model()
    compiled = torch.compile(model, backend="eager")
    compiled.load_state_dict(compiled.state_dict())  # the wrapper's own keys
    compiled._orig_mod.load_state_dict(_model().state_dict())  # into the model
    model.load_state_dict(_model().state_dict(), strict=False)
    assert captured() == []
