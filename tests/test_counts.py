"""A run's counts say what happened to the program: an accuracy mismatch is stored as a
failure row of stage `accuracy` (what a check gate raises) but is no exception the program
met. probes26: `compdiag run --check-accuracy` summed it up as "1 failure", and explain's
header said "1 failure folded into the accuracy mismatch diagnosis"."""

from __future__ import annotations

import json

from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer
from compdiag.views.explain import explain_document, header_lines


def test_an_accuracy_mismatch_is_counted_as_one_not_as_a_failure(tmp_path) -> None:
    path = tmp_path / "s.db"
    w = Writer(path)
    run = w.begin_run(source="run", argv=["train.py"], cwd=str(tmp_path))
    ing = Ingestor(w, run)
    ing.record({"frame_id": 0, "frame_compile_id": 0, "compilation_metrics": {
        "co_name": "f", "co_filename": str(tmp_path / "train.py"), "co_firstlineno": 1}}, None)
    ing.event("accuracy", "0/0", {}, payload=json.dumps({
        "compile_id": "0/0", "error": None, "nondeterministic": False, "divergent_node": None,
        "outputs": [{"output": "output 0", "max_abs": 1.0, "max_rel": 0.5, "ok": False,
                     "detail": {"reason": "differs"}}]}))
    ing.flush()
    w.end_run(run, exit_code=0, status="done")
    w.close()
    with Reader(path) as r:
        counts = r.counts(run)
        doc = explain_document(r, run)
    assert counts["failures"] == 0 and counts["accuracy_mismatches"] == 1
    assert doc["diagnoses"][0]["kind"] == "accuracy"
    head = "\n".join(header_lines(doc))
    assert "failure" not in head, head


def test_a_compile_that_made_no_graph_is_said_to_have_failed(tmp_path) -> None:
    """probes39c unfreeze_requires_grad_in_forward, blind: Dynamo gave up on the whole forward
    (`requires_grad_()` inside it), no graph was made and the header still said "1 compile",
    as if something ran compiled."""
    path = tmp_path / "s.db"
    w = Writer(path)
    run = w.begin_run(source="run", argv=["train.py"], cwd=str(tmp_path))
    ing = Ingestor(w, run)
    ing.record({"frame_id": 0, "frame_compile_id": 0, "compilation_metrics": {
        "co_name": "forward", "co_filename": str(tmp_path / "train.py"), "co_firstlineno": 1,
        "fail_type": "torch._dynamo.exc.Unsupported", "fail_reason": "requires_grad_"}}, None)
    ing.flush()
    w.end_run(run, exit_code=0, status="done")
    w.close()
    with Reader(path) as r:
        counts = r.counts(run)
        doc = explain_document(r, run)
    assert counts["compiles"] == 1 and counts["failed_compiles"] == 1, counts
    head = "\n".join(header_lines(doc))
    assert "1 compile (it failed: no graph, its code ran in eager)" in head, head
