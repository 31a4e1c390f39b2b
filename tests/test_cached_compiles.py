"""A compile served from the FX graph cache keeps the facts of the compile that made the
entry (issue 29; analyses/cached_compiles.py): on a hit Inductor replays no lowering, so a
warm run has no perf hints and an eager-fallback diagnosis vanished. explain now says the same
on the warm run as on the cold one, marked as coming from the cached compile, and says the
lowering facts are missing where the store never saw the entry made. Fast: trace-shaped
records through the Ingestor, no compile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cdtest import Session, end_fed_run, fed_run
from compdiag.ingest.sources import keep_sources
from compdiag.analyses.explain import explain
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer
from compdiag.views.explain import explain_document

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
KEY = "fcumsumkey"
POST_GRAD = ('        # File: {user}:5 in f, code: return x.cumsum(0)\n'
             '        cumsum: "f32[8][1]cpu" = torch.ops.aten.cumsum.default(arg0_1, 0)\n')


# The wrapper's call of the fallback (cold and warm alike: a hit logs the cached code).
OUTPUT_CODE = ("def call(args):\n    arg0_1, = args\n"
               "    buf0 = torch.ops.aten.cumsum.default(arg0_1, 0)\n    return (buf0, )\n")


def _run(w: Writer, user: Path, result: str) -> int:
    """corpus/perf_fallback_cumsum's compile 0/0, cold (`miss`: lowered, Inductor's
    FallbackKernel perf hint) or warm (`hit`: the cached graph and no hint)."""
    run_id = w.begin_run(source="run", argv=[str(user)], cwd=str(user.parent))
    ing = Ingestor(w, run_id)
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    ing.record({"artifact": {"name": f"fx_graph_cache_{result}", "encoding": "json"}, **ids},
               json.dumps({"key": KEY, "cache_state": result,
                           "components": ["[h1] gm: cumsum", "[h2] inductor_config[x]: 1"]}))
    ing.record({"inductor_post_grad_graph": {}, **ids}, POST_GRAD.format(user=user))
    ing.record({"inductor_output_code": {}, **ids}, OUTPUT_CODE)
    if result == "miss":
        ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.cumsum.default")
    return end_fed_run(w, ing, run_id, user, 4, ids)


def _user(tmp_path: Path) -> Path:
    user = tmp_path / "model.py"
    user.write_text("import torch\n\n\ndef f(x):\n    return x.cumsum(0)\n")
    return user


def test_a_warm_run_says_what_the_cold_run_said(tmp_path):
    """Cold then warm into one store: the same top (the cumsum fallback at line 5), on the
    warm run marked as coming from run 1's compile 0/0. On main the warm run said "no
    problems found"."""
    user = _user(tmp_path)
    w = Writer(tmp_path / "s.db")
    cold, warm = _run(w, user, "miss"), _run(w, user, "hit")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        c, h = explain(r, cold), explain(r, warm)
        warm_doc = explain_document(r, warm)["diagnoses"]
    assert c and h, (c, h)
    assert (h[0].kind, h[0].reason, h[0].user_frame.lineno) == \
        (c[0].kind, c[0].reason, c[0].user_frame.lineno) == (c[0].kind, c[0].reason, 5)
    assert c[0].from_cache is None
    assert h[0].from_cache == {"run": cold, "compile_id": "0/0", "cache": "fx_graph",
                               "key": KEY}
    assert warm_doc[0]["from_cache"]["run"] == cold
    assert not [d for d in h if d.kind == "cache"]  # the entry's origin is known: no note


def test_a_hit_the_store_never_saw_made_says_the_facts_are_missing(tmp_path):
    """Only the warm run (the cache was warmed without compdiag): the fallback is read from
    the cached output code the trace carries (the same kind, op and line as a cold run's), and
    one information line of kind cache says the run was served from the cache and that the
    other lowering facts are missing. On main: silence ("no problems found")."""
    user = _user(tmp_path)
    w = Writer(tmp_path / "s.db")
    warm = _run(w, user, "hit")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        found = explain(r, warm)
    assert sorted(d.kind for d in found) == ["cache", "perf"], found
    perf, note = (next(d for d in found if d.kind == k) for k in ("perf", "cache"))
    # a single op's fallback is information, unless `compdiag perf` measured it (probes30a)
    assert (perf.kind, perf.details.op, perf.user_frame.lineno, perf.severity) == \
        ("perf", "cumsum", 5, "info")
    assert "cached output code" in perf.reason and perf.from_cache is None
    assert (note.kind, note.severity) == ("cache", "info")
    assert "served from the FX graph cache" in note.reason and "missing" in note.reason
    assert "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1" in note.fix and "compdiag run" in note.fix


def test_a_hit_of_another_function_is_at_its_own_op_line(tmp_path):
    """Two functions with one graph in one run: 0/0 (f, line 4) misses and lowers, 1/0 (g,
    line 8) hits the entry 0/0 made. g's carried fallback is at g's own cumsum line (9, from
    the cached post-grad graph this run has), not f's line 5."""
    user, w, run_id, ing = fed_run(tmp_path, "import torch\n\n\ndef f(x):\n    return "
                                   "x.cumsum(0)\n\n\ndef g(x):\n    return x.cumsum(0)\n")
    for frame, (result, fn, first) in enumerate((("miss", "f", 4), ("hit", "g", 8))):
        ids = {"frame_id": frame, "frame_compile_id": 0, "attempt": 0}
        ing.record({"artifact": {"name": f"fx_graph_cache_{result}", "encoding": "json"},
                    **ids}, json.dumps({"key": KEY, "components": ["[h1] gm: cumsum"]}))
        ing.record({"inductor_post_grad_graph": {}, **ids}, POST_GRAD.format(user=user)
                   .replace(":5 in f", f":{first + 1} in {fn}"))
        if result == "miss":
            ing.event("perf_hints", "0/0", {},
                      "Using FallbackKernel: torch.ops.aten.cumsum.default")
        ing.record({"compilation_metrics": {"co_name": fn, "co_filename": str(user),
                                            "co_firstlineno": first}, **ids}, None)
    ing.flush()
    keep_sources(w, run_id)  # as capture does when a run ends
    w.end_run(run_id, exit_code=0, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        perf = {d.compile_id: d for d in explain(r, run_id) if d.kind == "perf"}
    assert perf["0/0"].user_frame.lineno == 5 and perf["0/0"].from_cache is None
    assert perf["1/0"].user_frame.lineno == 9
    assert perf["1/0"].from_cache == {"run": run_id, "compile_id": "0/0", "cache": "fx_graph",
                                      "key": KEY}


@pytest.mark.slow
def test_a_corpus_fallback_run_cold_then_warm_has_the_same_top(tmp_path):
    """corpus/perf_fallback_cumsum with Inductor's caches left on (the script turns the FX
    graph cache off only because a warm run lost its perf hint), run cold then warm into one
    store with its own cache dir: the warm run hits and its top is the cold run's (the cumsum
    fallback at the marked line), from run 1's compile. On main the warm run said "no
    problems found". Two small compiles, the second a cache hit."""
    text = (CORPUS / "perf_fallback_cumsum.py").read_text()
    script = tmp_path / "perf_fallback_cumsum.py"
    script.write_text(text.replace("torch._inductor.config.fx_graph_cache = False", ""))
    s = Session(root=tmp_path, store=tmp_path / "s.db", cache=tmp_path / "inductor-cache")
    cold, warm = s.run(script, cwd=tmp_path), s.run(script, cwd=tmp_path)
    assert cold.returncode == 0 and warm.returncode == 0, (cold.stderr[-2000:],
                                                          warm.stderr[-2000:])
    caches = [c["result"] for c in s.show(warm.run_id)["caches"] if c["cache"] == "fx_graph"]
    assert caches == ["hit"], caches
    with Reader(s.store) as r:
        c, h = explain(r, cold.run_id), explain(r, warm.run_id)
    marked = 1 + next(i for i, ln in enumerate(text.splitlines()) if "<- diagnosis" in ln)
    assert (c[0].kind, c[0].user_frame.lineno) == ("perf", marked)
    assert (h[0].kind, h[0].reason, h[0].user_frame.lineno) == ("perf", c[0].reason, marked)
    assert h[0].from_cache and h[0].from_cache["run"] == cold.run_id
