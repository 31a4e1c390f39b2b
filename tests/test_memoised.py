"""A memoised helper whose random draw compiled code makes again at each call (kind
`memoised`). probes36e lru_random_features: random Fourier features drawn once by a
`functools.lru_cache` helper, so that train and test features share one projection; Dynamo
ignores the cache wrapper (torch warns) and each call in the compiled function drew its own,
the test error went from 0.49 to 2.01, and explain said no problem. Fast: hand-built stores,
torch's own warning text read from its source."""

from __future__ import annotations

import inspect
from pathlib import Path

from compdiag.analyses.diagnoses import memoised as M
from compdiag.analyses.explain import explain
from compdiag.ingest.ingestor import Ingestor
from compdiag.ingest.sources import keep_sources
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer

PROGRAM = '''import functools
import torch


@functools.lru_cache(maxsize=None)
def projection(d, n):
    w = torch.randn(d, n)
    return w


def features(x):
    w = projection(x.shape[-1], 8)
    return torch.cos(x @ w)


@functools.cache
def table(n):
    return torch.arange(n) * 2.0


calls = 0


@functools.lru_cache
def scale(n):
    global calls
    calls += 1
    return n * 2
'''
WARNING = ("Dynamo detected a call to a `functools.lru_cache`-wrapped function at "
           "'prog.py:{line}'. Dynamo ignores the cache wrapper and directly traces the wrapped "
           "function. Silent incorrectness is only a *potential* risk, not something we have "
           "observed.\n\nThis call originates from:\n  File \"{file}\", line {line}, in "
           "features\n    w = projection(x.shape[-1], 8)\n")


def _diagnose(tmp_path: Path, nodes: list[tuple[str, int]], warn_line: int = 12,
              call: str = "w = projection(x.shape[-1], 8)"):
    user = tmp_path / "prog.py"
    lines = PROGRAM.splitlines()
    lines[warn_line - 1] = "    " + call
    user.write_text("\n".join(lines) + "\n")
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=[str(user)], cwd=str(tmp_path))
    ing = Ingestor(w, rid)
    ing.record({"frame_id": 0, "frame_compile_id": 0, "compilation_metrics": {
        "co_name": "features", "co_filename": str(user), "co_firstlineno": 11}}, None)
    ing.flush()
    w.insert("torch_warnings", run_id=rid, compile_id="0/0", category="UserWarning",
             message=WARNING.format(file=user, line=warn_line), filename="functions.py",
             lineno=1, call=None)
    for seq, (target, lineno) in enumerate(nodes):
        w.insert("graph_nodes", run_id=rid, compile_id="0/0", seq=seq, node=f"n{seq}",
                 op="call_function", target=target, meta=None, filename=str(user),
                 lineno=lineno, line=lines[lineno - 1].strip(), stack=None)
    keep_sources(w, rid)
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        return explain(r, rid)


def test_a_memoised_random_draw_is_said_at_the_call_with_its_draw(tmp_path):
    ds = _diagnose(tmp_path, [("prims.inductor_random.default", 7),
                              ("prims.inductor_random.default", 7), ("aten.cos.default", 13)])
    (d,) = [d for d in ds if d.kind == "memoised"]
    assert d.severity == "problem" and d.user_frame.lineno == 12, d
    assert "projection() is memoised with `@functools.lru_cache`" in d.reason, d.reason
    assert "line 7 (`w = torch.randn(d, n)`)" in d.reason and "2 calls" in d.reason
    assert "projection(...)" in d.fix and d.details.first == 6 and d.details.effect == "random draw"
    assert ds[0] is d  # silently other values than eager: above the information


def test_a_memoised_helper_that_draws_nothing_is_not_said(tmp_path):
    """lru_cache_rope_ok (probes29a): a memoised table of constants is computed again in the
    graph, the same values: nothing to say. Nor a random draw outside every memoised helper."""
    assert not [d for d in _diagnose(tmp_path, [("aten.arange.default", 18)])
                if d.kind == "memoised"]
    assert not [d for d in _diagnose(tmp_path, [("aten.randn.default", 13)])
                if d.kind == "memoised"]


def test_torch_still_warns_in_these_words():
    """The kind reads torch's warning: its words are in the installed torch's Dynamo."""
    from torch._dynamo.variables import functions

    source = inspect.getsource(functions)
    assert M.WARNING in source and "originates from" in source


def test_a_memoised_global_write_is_said_at_the_call(tmp_path):
    """pytorch/pytorch#146598: a memoised function counting its calls in a global; eager
    counts once per argument, compiled code at each call (and guards on the count)."""
    ds = _diagnose(tmp_path, [("aten.mul.Tensor", 13)], call="w = scale(3) * x")
    (d,) = [d for d in ds if d.kind == "memoised"]
    assert "scale() is memoised with `@functools.lru_cache`" in d.reason, d.reason
    assert "write to a global at line 27 (`calls += 1`)" in d.reason, d.reason
    assert d.user_frame.lineno == 12 and d.details.effect == "write to a global"
