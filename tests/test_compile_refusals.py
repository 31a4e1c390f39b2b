"""torch.compile(...) refusing its own arguments is a failure of torch.compile at the call,
with the call torch accepts (set24/gpu's compile_mode_with_options and cudagraphs_option_key,
probes29b's serve_mode_options: three blind users expected a failure; before this test explain
called it the program's own error and its fix only said "as torch's message says").

The refusals are real: torch.compile raises them at the call, before anything compiles, so
this costs no compile. Each printed fix is then handed back to torch.compile, which must take
it."""

from __future__ import annotations

import re

import pytest
import torch

from compdiag.analyses.explain import explain
from compdiag.capture.failures import record_escaped_exception
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer


def _refused(tmp_path, call):
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    ing = Ingestor(w, rid)
    with pytest.raises(RuntimeError) as info:
        call()
    record_escaped_exception(ing, info.value)
    ing.flush()
    w.end_run(rid, exit_code=1, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        diags = [d for d in explain(r, rid) if d.severity == "problem"]
    assert diags, "a refused torch.compile call is no problem"
    return diags[0]


def test_a_misspelt_option_is_a_failure_whose_fix_names_the_option_torch_lists(tmp_path):
    model = torch.nn.Linear(4, 4)
    top = _refused(tmp_path, lambda: torch.compile(
        model, options={"max_autotune": True, "cudagraphs": True}))
    assert top.kind == "failure" and top.user_frame.lineno, top
    assert "cudagraphs" in top.reason and "known options are" not in top.reason, top.reason
    assert "compdiag minify" not in top.fix and "compdiag bisect" not in top.fix
    named = re.findall(r'options=\{"([^"]+)"', top.fix)
    assert named == ["triton.cudagraphs"], top.fix
    torch.compile(model, options={"max_autotune": True, named[0]: True})  # torch takes it


def test_mode_and_options_together_get_the_mode_merged_into_options(tmp_path):
    model = torch.nn.Linear(4, 4)
    top = _refused(tmp_path, lambda: torch.compile(model, mode="reduce-overhead",
                                                   options={"max_autotune": True}))
    assert top.kind == "failure" and "mode or options" in top.reason, top
    assert "list_mode_options('reduce-overhead')" in top.fix, top.fix
    import torch._inductor as inductor

    merged = {**inductor.list_mode_options("reduce-overhead"), "max_autotune": True}
    torch.compile(model, options=merged)  # the call the fix spells is accepted


def test_an_unknown_option_with_no_near_name_points_at_torchs_list(tmp_path):
    top = _refused(tmp_path, lambda: torch.compile(torch.nn.Linear(4, 4),
                                                   options={"zzz_no_such_knob": 1}))
    assert top.kind == "failure" and "list_options()" in top.fix, top.fix
