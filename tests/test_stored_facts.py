"""Facts stay facts (issue 35, item 3): what explain used to read out of torch's stored text
(a failure traceback's graph break, the recompile-limit marker, ConstraintViolationError's
"Constraints violated", a CUDA-graph skip's "Found from" trace, compilation_metrics'
automatic-dynamic flag and guard count) is parsed once by the Ingestor into columns, and
`compdiag reindex` derives them again for older rows. Regression tests: with the text gone
from the store, the analyses must still know the facts (before the fix they re-parsed it).
Fast: records fed through the Ingestor, no compile."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from compdiag.analyses.context import RunContext, is_recompile_limit
from compdiag.analyses.explain import explain
from compdiag.ingest.ingestor import Ingestor
from compdiag.ingest.sources import keep_sources
from compdiag.ingest.reindex import reindex
from compdiag.store.reader import Reader
from compdiag.store.schema import BACKFILLED_COLUMNS
from compdiag.store.writer import Writer

LIMIT_TB = ("torch._dynamo.exc.Unsupported: Dynamo recompile limit exceeded\n"
            "  Explanation: the function recompiled 8 times\n"
            "For more details, see https://meta-pytorch.github.io/compile-graph-break-site/"
            "gb/gb0098.html\n")
CONSTRAINT = ("Constraints violated (L['x'].size()[0])! For more information, run with "
              "TORCH_LOGS=\"+dynamic\".\n  - Not all values of L['x'].size()[0] are valid\n"
              "User stack:\n  File \"{user}\", line 4, in f\n    return x.view(3, -1)\n")
SKIP = ("skipping cudagraphs due to mutated inputs (1 instances). Found from : \n"
        "   File \"{user}\", line 6, in f\n    x.add_(1)\n")


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, Path, int]:
    """A run with a recompile-limit failure, a mark_dynamic violation, a CUDA-graph skip and
    a compile with automatic dynamic shapes off and 7 guards, fed through the Ingestor."""
    user = tmp_path / "user.py"
    user.write_text("".join(f"line_{i} = {i}\n" for i in range(1, 10)))
    path = tmp_path / "s.db"
    w = Writer(path)
    run_id = w.begin_run(source="run", argv=[str(user)], cwd=str(tmp_path))
    ing = Ingestor(w, run_id)
    ing.record({"frame_id": 0, "frame_compile_id": 0, "compilation_metrics": {
        "co_name": "f", "co_filename": str(user), "co_firstlineno": 3, "guard_count": 7,
        "dynamo_config": json.dumps({"automatic_dynamic_shapes": False})}}, None)
    ing.failure("0/1", stage="dynamo", exc_type="Unsupported", message="recompile limit hit",
                filename=str(user), lineno=3, traceback=LIMIT_TB)
    ing.failure("0/2", stage="dynamo", exc_type="ConstraintViolationError",
                message=CONSTRAINT.format(user=user), filename=None, lineno=None)
    ing.cudagraph_line("0/0", SKIP.format(user=user))
    ing.flush()
    keep_sources(w, run_id)  # as capture does when a run ends
    w.end_run(run_id, exit_code=0, status="done")
    w.close()
    return path, user, run_id


def _erase_text(path: Path) -> None:
    """What torch said, gone: only the stored facts are left to read."""
    conn = sqlite3.connect(path)
    conn.execute("UPDATE failures SET message = 'gone', traceback = NULL, torch_message = NULL")
    conn.execute("UPDATE cudagraphs SET reason = 'gone'")
    conn.execute("UPDATE compiles SET metrics = '{}'")
    conn.commit()
    conn.close()


def test_ingest_stores_the_facts_of_torchs_text(store) -> None:
    path, user, run_id = store
    with Reader(path) as r:
        fails = {f["compile_id"]: f for f in r.failures(run_id)}
        assert fails["0/1"]["recompile_limit"] and fails["0/1"]["gb_code"] == "GB0098"
        assert fails["0/1"]["gb_explanation"] == "the function recompiled 8 times"
        assert fails["0/2"]["constraint_sources"] == ["L['x'].size()[0]"]
        assert fails["0/2"]["constraint_frames"][0]["lineno"] == 4
        assert not fails["0/2"]["recompile_limit"]
        skip = r.cudagraphs(run_id)[0]
        assert skip["head"] == "mutated inputs (1 instances)"
        assert skip["frames"][0]["lineno"] == 6
        c = r.compile(run_id, "0/0")
        assert c["guard_count"] == 7 and c["automatic_dynamic"] == 0


def test_the_analyses_read_the_stored_facts_not_torchs_text(store) -> None:
    """Regression: with torch's text erased from the store, explain still knows each fact
    (before, it searched the text: a recompile limit by substring, the CUDA-graph skip's
    frames by splitting at "Found from", automatic dynamic out of the metrics' string)."""
    path, user, run_id = store
    _erase_text(path)
    with Reader(path) as r:
        ctx = RunContext(r, run_id)
        limit = next(f for f in ctx.failures if f["compile_id"] == "0/1")
        assert is_recompile_limit(limit)
        [limit_fact] = ctx.recompile_limits.values()
        assert limit_fact["explanation"] == "the function recompiled 8 times"
        assert ctx.automatic_dynamic("0/0") is False
        diags = explain(r, run_id)
    cg = next(d for d in diags if d.kind == "cudagraph")
    assert "mutated inputs" in cg.reason and cg.user_frame.lineno == 6
    marked = next(d for d in diags if d.kind == "failure" and d.compile_id == "0/2")
    assert marked.user_frame.lineno == 4 and "x.shape[0]" in marked.explanation
    assert not any(d.kind == "failure" and d.compile_id == "0/1" for d in diags)
    from compdiag.analyses.compile_time import guards
    with Reader(path) as r:
        assert guards(r, run_id, r.compile(run_id, "0/0"), {})["count"] == 7


def test_reindex_derives_the_facts_again_for_older_rows(store) -> None:
    """A store written before these columns existed has them empty: reindex fills them from
    each row's own text, with the functions the Ingestor uses."""
    path, user, run_id = store
    conn = sqlite3.connect(path)
    for table, cols in BACKFILLED_COLUMNS.items():
        conn.execute(f"UPDATE {table} SET {', '.join(f'{c} = NULL' for c in cols)}")
    conn.commit()
    conn.close()
    reindex(path)
    with Reader(path) as r:
        fails = {f["compile_id"]: f for f in r.failures(run_id)}
        assert fails["0/1"]["recompile_limit"] and fails["0/1"]["gb_code"] == "GB0098"
        assert fails["0/2"]["constraint_sources"] == ["L['x'].size()[0]"]
        assert r.cudagraphs(run_id)[0]["frames"][0]["lineno"] == 6
        assert r.compile(run_id, "0/0")["guard_count"] == 7


@pytest.mark.parametrize("graph, ops", [(False, 0), (False, None), (True, 0)])
def test_a_compile_that_gave_the_backend_no_graph_is_empty(tmp_path: Path, graph: bool,
                                                            ops: int | None) -> None:
    """Regression (session 20's sweep of PyTorch's own tests, test_hooks.py and
    test_ctx_manager.py): a frame Dynamo rewrote without a graph (only a `register_hook` on
    an input, or the partial graph before a break holding no op) has guarded code, and its
    compile was "ok": show counted a graph where torch's CompileCounter counted none, and so
    did the divergence kind. A compile is "empty" (docs/json.md: no graph) when it has no op
    and no dynamo_output_graph record; one with the record stays "ok". Failed on main: the
    first case was "ok"; torch 2.13 leaves graph_op_count None where Dynamo kept no output
    graph (test_hooks.py's register_hook-only frame), the second."""
    path = tmp_path / "s.db"
    w = Writer(path)
    run_id = w.begin_run(source="run", argv=["x.py"], cwd=str(tmp_path))
    ing = Ingestor(w, run_id)
    env = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    ing.record({**env, "dynamo_start": {"stack": []}}, None)
    if graph:
        ing.record({**env, "dynamo_output_graph": {"sizes": {}}},
                   "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_):\n"
                   "        return (L_x_,)\n")
    ing.record({**env, "compilation_metrics": {"co_name": "fn", "graph_op_count": ops,
                                               "has_guarded_code": True}}, None)
    ing.flush()
    keep_sources(w, run_id)
    w.close()
    with Reader(path) as r:
        assert [c["status"] for c in r.compiles(run_id)] == ["ok" if graph else "empty"]
