"""One CompileId (issue 35 §2) and compile identity across torch._dynamo.reset() (issue 29 §5).

The unit tests parse, print and sort every form torch 2.11-2.15 prints (torch/_guards.py
CompileId.__str__ and TraceId.__str__) plus compdiag's generation. The ingest tests feed
trace-shaped records through the Ingestor, as tests/test_explain.py does: torch names two
compiles '0/0' around a reset, and they must stay two compiles. One real compile
(corpus/cache_reset_config.py under `compdiag run`, once per module) checks the same on
torch's own records and that explain names the cache key component the program changed."""

from __future__ import annotations

import json
from typing import Any
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cdtest import REPO, Proc, Session, fed_run
from compdiag.ingest.sources import keep_sources
from compdiag.formats.compile_id import CompileId, display, first_attempt, frame_of, sort_key
from compdiag.ingest.generations import RESET_KIND
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer

# -- the value -------------------------------------------------------------------------------
FORMS = {  # torch's text (and compdiag's) -> (frame, frame_compile, attempt, generation, ca)
    "0/0": (0, 0, 0, 0, None),
    "3/12": (3, 12, 0, 0, None),
    "0/1_2": (0, 1, 2, 0, None),
    "!0": (None, None, 0, 0, 0),
    "!2_1": (None, None, 1, 0, 2),
    "!0/1/2": (1, 2, 0, 0, 0),
    "!4/1/2_3": (1, 2, 3, 0, 4),
    "0/0@1": (0, 0, 0, 1, None),
    "0/1_2@3": (0, 1, 2, 3, None),
    "!0/1/2_1@2": (1, 2, 1, 2, 0),
}


@pytest.mark.parametrize("text", sorted(FORMS))
def test_every_form_torch_prints_parses_and_prints_back(text: str) -> None:
    cid = CompileId.parse(text)
    assert (cid.frame, cid.frame_compile, cid.attempt, cid.generation,
            cid.compiled_autograd) == FORMS[text]
    assert str(cid) == text
    assert cid.torch_id() == text.split("@")[0]
    assert CompileId.parse(cid.display()) == cid
    assert CompileId.parse(f"[{cid.torch_id()}]") == cid.with_generation(0)  # a log prefix


def test_display_says_after_which_reset() -> None:
    assert display("0/0") == "0/0"
    assert display("0/0@1") == "0/0 (after reset 1)"
    assert display("0/1_2@3") == "0/1_2 (after reset 3)"
    assert display(None) == "" and display("not an id") == "not an id"


@pytest.mark.parametrize("text", ["", "0", "0/", "/0", "a/b", "0/0_", "!", "0/0@", "0/0/0",
                                  "!0/1", "0/0 (after reset)", "-1/0"])
def test_what_is_not_a_compile_id_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        CompileId.parse(text)
    assert CompileId.of(text) is None


def test_the_trace_envelope_spells_it_as_torch_does() -> None:
    assert str(CompileId.from_trace({"frame_id": 0, "frame_compile_id": 1, "attempt": 2})) \
        == "0/1_2"
    assert str(CompileId.from_trace({"frame_id": 1, "frame_compile_id": 2, "attempt": 0,
                                     "compiled_autograd_id": 0})) == "!0/1/2"
    assert CompileId.from_trace({"frame_id": True, "frame_compile_id": 0}) is None
    assert CompileId.from_trace({"compiled_autograd_id": 0}) is None


def test_sorted_in_compile_order() -> None:
    ids = ["0/0@1", "x", None, "!0/0/0", "0/10", "0/9_1", "1/0", "0/9", "0/0"]
    assert sorted(ids, key=sort_key) == ["0/0", "0/9", "0/9_1", "0/10", "1/0", "!0/0/0",
                                         "0/0@1", None, "x"]


def test_relations_keep_the_generation() -> None:
    assert first_attempt("0/1_2@1") == "0/1@1" and first_attempt("0/1_2") == "0/1"
    assert frame_of("0/3") == "0" and frame_of("0/3@2") == "0@2"
    assert frame_of("!0/1/2") == "!0/1" and frame_of(None) is None


ids = st.builds(
    lambda ca, frame, fc, attempt, gen: CompileId(
        None if ca is not None and frame is None else (frame if frame is not None else 0),
        None if ca is not None and frame is None else fc, attempt, gen, ca),
    st.none() | st.integers(0, 50), st.none() | st.integers(0, 10**6), st.integers(0, 10**6),
    st.integers(0, 99), st.integers(0, 99))


@given(ids)
def test_round_trip_of_every_value(cid: CompileId) -> None:
    assert CompileId.parse(str(cid)) == cid
    assert CompileId.parse(cid.display()) == cid
    assert CompileId.parse(cid.torch_id()) == cid.with_generation(0)


@given(st.lists(ids, min_size=2, max_size=8))
def test_sort_key_orders_generations_then_frames(cids: list[CompileId]) -> None:
    ordered = sorted(map(str, cids), key=sort_key)
    parsed = [CompileId.parse(t) for t in ordered]
    assert [c.generation for c in parsed] == sorted(c.generation for c in parsed)
    assert sorted(ordered, key=sort_key) == ordered


# -- two compiles torch names 0/0, apart ------------------------------------------------------
ENVELOPE = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
GRAPH = "def forward(self, x):\n    sin = torch.ops.aten.sin.default(x)\n    return (sin,)"


def _compile(ing: Ingestor, user: Path, *, fallback_random: bool, key: str,
             extra: tuple[str, ...] = (), hit: bool = False) -> None:
    """The records torch 2.13 logs for one compile of `f` (user:3), in their order: the
    outermost chromium region opens before dynamo_start, the FX graph cache lookup, the
    metrics, the region's end."""
    def ev(ph: str, ts: int) -> str:
        return json.dumps({"name": "dynamo", "ph": ph, "ts": ts, "pid": 0,
                           "args": {"compile_id": "0/0"}})

    ing.record({**ENVELOPE, "chromium_event": {}}, ev("B", 1))
    ing.record({**ENVELOPE, "dynamo_start": {"stack": [
        {"filename": str(user), "line": 3, "name": "f", "loc": "def f(x):"}]}}, None)
    ing.record({**ENVELOPE, "artifact": {"name": f"fx_graph_cache_{'hit' if hit else 'miss'}",
                                         "encoding": "json"}},
               json.dumps({"key": key, "components": [
                   f"[g1] gm: {GRAPH}",
                   f"[{'r1' if fallback_random else 'r0'}] inductor_config[fallback_random]: "
                   f"{fallback_random}", *extra]}))
    ing.record({**ENVELOPE, "compilation_metrics": {
        "co_name": "f", "co_filename": str(user), "co_firstlineno": 3, "graph_op_count": 1}},
        None)
    ing.record({**ENVELOPE, "chromium_event": {}}, ev("E", 5))


def _two_compiles(tmp_path: Path, *, reset_record: bool) -> tuple[Path, int, Path]:
    user = tmp_path / "model.py"
    user.write_text("import torch\n\ndef f(x):\n    return x.sin()\n\nf(x)\n"
                    "torch._dynamo.reset()\n"
                    "torch._inductor.config.fallback_random = True\nf(x)\n")
    path = tmp_path / "s.db"
    w = Writer(path)
    run_id = w.begin_run(source="run", argv=[str(user)], cwd=str(tmp_path))
    ing = Ingestor(w, run_id)
    _compile(ing, user, fallback_random=False, key="k1")
    if reset_record:  # capture's hook on torch._dynamo.reset, with the line that called it
        ing.event(RESET_KIND, None, {}, json.dumps(
            {"filename": str(user), "lineno": 7, "line": "torch._dynamo.reset()"}))
    _compile(ing, user, fallback_random=True, key="k2")
    ing.flush()
    keep_sources(w, run_id)  # as capture does when a run ends
    w.end_run(run_id, exit_code=0, status="done")
    w.close()
    return path, run_id, user


@pytest.mark.parametrize("reset_record", [True, False], ids=["captured", "imported"])
def test_a_compile_id_torch_reuses_after_a_reset_stays_two_compiles(
        tmp_path: Path, reset_record: bool) -> None:
    """Regression test for issue 29 §5: on main before this change the two compiles were one
    '0/0' row (the second's metrics over the first's), their timings and cache lookups merged
    under it, and the miss after the reset had nothing earlier to be explained against.
    `captured`: capture's dynamo_reset record; `imported`: a TORCH_TRACE log without one,
    where the repeated 0/0 is the only sign."""
    from compdiag.analyses.explain import explain
    from compdiag.views.show import show_document

    path, run_id, user = _two_compiles(tmp_path, reset_record=reset_record)
    with Reader(path) as r:
        doc = show_document(r, run_id)
        assert [(c["compile_id"], c["generation"]) for c in doc["compiles"]] == \
            [("0/0", 0), ("0/0@1", 1)]
        assert [(c["compile_id"], c["result"]) for c in doc["caches"]] == \
            [("0/0", "miss"), ("0/0@1", "miss")]
        assert set(r.compile_stages(run_id)) == {"0/0", "0/0@1"}
        assert {e["compile_id"] for e in r.compile_events(run_id)} == {"0/0", "0/0@1"}
        assert [rec["compile_id"] for rec in r.records(run_id, kind="dynamo_start")] == \
            ["0/0", "0/0@1"]
        (d,) = explain(r, run_id)
    assert d.kind == "cache" and d.compile_id == "0/0@1"
    assert d.details.compared_to == {"run_id": run_id, "compile_id": "0/0", "key": "k1"}
    assert "inductor_config[fallback_random]: False -> True" in d.reason
    assert "before torch._dynamo.reset()" in d.reason
    assert ("at model.py:7" in d.reason) is reset_record
    # The line that changed the key component, after the reset.
    assert (d.user_frame.filename, d.user_frame.lineno) == (str(user), 8)


def _hit_after_reset(tmp_path: Path, exit_code: int) -> tuple[Any, int]:
    """A run that compiled f, reset at line 7, and compiled f again from the cache entry the
    first compile stored."""
    user, w, run_id, ing = fed_run(tmp_path, "import torch\n\ndef f(x):\n    return x.sin()"
                                   "\n\nf(x)\ntorch._dynamo.reset()\nf(x)\n")
    _compile(ing, user, fallback_random=False, key="k1")
    ing.event(RESET_KIND, None, {}, json.dumps(
        {"filename": str(user), "lineno": 7, "line": "torch._dynamo.reset()"}))
    _compile(ing, user, fallback_random=False, key="k1", hit=True)
    ing.flush()
    w.end_run(run_id, exit_code=exit_code, status="done")
    w.close()
    return w, run_id


def test_a_hit_after_a_reset_is_said_against_the_compile_before_it(tmp_path: Path) -> None:
    """pytorch#172024's class: torch.compiler.reset() leaves Inductor's caches, so the compile
    after it is served from the entry the compile before it stored. On main before this
    change the run had no diagnosis at all ("no problems found") and principles_check's §5
    (reset_problems) rejects that; now it is information naming the reset's line."""
    from compdiag.analyses.explain import explain
    from principles_check import reset_problems

    w, run_id = _hit_after_reset(tmp_path, exit_code=0)
    with Reader(w.path) as r:
        (unsaid,) = reset_problems(r, run_id, [])
        assert "0/0@1 after a reset hit the fx_graph cache" in unsaid
        (d,) = explain(r, run_id)
        assert reset_problems(r, run_id, [d.to_json()]) == []
    assert d.kind == "cache" and d.severity == "info" and d.compile_id == "0/0@1"
    assert d.reason.startswith("compiled from the cache after torch._dynamo.reset() at line 7")
    assert "force_disable_caches" in d.fix


def test_a_failed_check_after_a_hit_across_a_reset_names_the_cache(tmp_path: Path) -> None:
    """set14 custom_op_backward_stale_cache (pytorch#144344), first run: a custom op's autograd
    formula changed, torch._dynamo.reset(), the compile after it was served the old backward
    from the caches, and the program's own assert_close failed with no cause named (the hit
    was information only). The failed check now names the hit across the reset."""
    from compdiag.analyses.check_causes import served_across_reset
    from compdiag.analyses.context import RunContext

    w, run_id = _hit_after_reset(tmp_path, exit_code=1)
    with Reader(w.path) as r:
        said = served_across_reset(RunContext(r, run_id))
    assert said and said.startswith("the compile after torch._dynamo.reset() (line 7) was "
                                    "served from the fx_graph cache entry"), said


def test_a_deterministic_algorithms_switch_is_the_line_of_the_miss(tmp_path: Path) -> None:
    """A key component changed by a call, not an assignment: the call after the reset."""
    from compdiag.analyses.explain import explain

    user, w, run_id, ing = fed_run(tmp_path, "import torch\n\ndef f(x):\n    return x.sin()"
                                   "\n\nf(x)\ntorch._dynamo.reset()\n"
                                   "torch.use_deterministic_algorithms(True)\nf(x)\n")
    for on, key in ((False, "k1"), (True, "k2")):
        _compile(ing, user, fallback_random=False, key=key, extra=(
            f"[d{int(on)}] deterministic_algorithms_settings: ({on}, False, True)",))
    ing.flush()
    keep_sources(w, run_id)  # as capture does when a run ends
    w.close()
    with Reader(tmp_path / "s.db") as r:
        (d,) = explain(r, run_id)
    assert "deterministic_algorithms_settings: (False, False, True) -> (True, False, True)" \
        in d.reason
    assert (d.user_frame.lineno, d.user_frame.line) == \
        (8, "torch.use_deterministic_algorithms(True)")


def test_reindex_replays_the_generations(tmp_path: Path) -> None:
    """`compdiag reindex` re-derives the same compiles (and the reset's line) from the raw
    records, the compiles table included."""
    from compdiag.ingest.reindex import reindex

    path, run_id, _ = _two_compiles(tmp_path, reset_record=True)
    with Reader(path) as r:
        before = [(c["compile_id"], c["generation"], c["co_name"]) for c in r.compiles(run_id)]
        resets = r.dynamo_resets(run_id)
    reindex(path)
    with Reader(path) as r:
        assert [(c["compile_id"], c["generation"], c["co_name"])
                for c in r.compiles(run_id)] == before
        assert r.dynamo_resets(run_id) == resets and resets[1]["lineno"] == 7


def test_a_reset_before_any_compile_keeps_0_0(tmp_path: Path) -> None:
    """A test suite resets before its first compile: nothing to tell apart, no generation."""
    path = tmp_path / "s.db"
    w = Writer(path)
    run_id = w.begin_run(source="run", argv=["x.py"], cwd=str(tmp_path))
    ing = Ingestor(w, run_id)
    ing.event(RESET_KIND, None, {}, None)
    ing.record({**ENVELOPE, "compilation_metrics": {"co_name": "f", "graph_op_count": 1}},
               None)
    ing.record({**ENVELOPE, "frame_compile_id": 1,
                "compilation_metrics": {"co_name": "f", "graph_op_count": 1}}, None)
    ing.flush()
    keep_sources(w, run_id)  # as capture does when a run ends
    w.close()
    with Reader(path) as r:
        assert [c["compile_id"] for c in r.compiles(run_id)] == ["0/0", "0/1"]


# -- one real compile --------------------------------------------------------------------------
SCRIPT = REPO / "corpus" / "cache_reset_config.py"


@pytest.fixture(scope="module")
def reset_run(session: Session) -> Proc:
    """corpus/cache_reset_config.py once, with TORCH_TRACE on (imported below)."""
    root = session.root / "reset_run"
    root.mkdir()
    # Its own fresh Inductor cache, not the session's shared one: the explain test below
    # names the config change that made the second compile a cache miss, and the first
    # compile must be a cold one (corpus/cache_reset_config.py runs in the corpus too).
    p = session.run(SCRIPT, store=root / "s.db", cwd=root,
                    env=session.env(TORCH_TRACE=str(root / "trace"),
                                    TORCHINDUCTOR_CACHE_DIR=str(root / "inductor-cache")))
    assert p.returncode == 0 and p.run_id is not None, p.stderr[-4000:]
    p.extra.update(root=root, store=root / "s.db",
                   show=session.show(p.run_id, store=root / "s.db"))
    return p


@pytest.mark.slow
def test_show_lists_both_compiles_of_a_real_run(reset_run: Proc, session: Session) -> None:
    compiles = reset_run.extra["show"]["compiles"]
    assert [(c["compile_id"], c["generation"], c["co_name"]) for c in compiles] == \
        [("0/0", 0, "scale"), ("0/0@1", 1, "scale")]
    text = session.compdiag("show", "--store", reset_run.extra["store"])
    assert text.returncode == 0 and "0/0 (after reset 1)" in text.stdout


@pytest.mark.slow
def test_explain_names_the_config_that_made_the_miss(reset_run: Proc, session: Session
                                                     ) -> None:
    out = session.compdiag("explain", "--store", reset_run.extra["store"], "--json")
    assert out.returncode == 0, out.stderr
    (d,) = [d for d in json.loads(out.stdout)["diagnoses"] if d["kind"] == "cache"]
    assert d["compile_id"] == "0/0@1"
    assert "inductor_config[fallback_random]: False -> True" in d["reason"]
    assert "before torch._dynamo.reset() at cache_reset_config.py:15" in d["reason"]
    assert d["user_frame"]["lineno"] == 16  # torch._inductor.config.fallback_random = True


@pytest.mark.slow
def test_the_runs_own_trace_log_imports_as_two_compiles(reset_run: Proc, session: Session
                                                        ) -> None:
    """A TORCH_TRACE log has no record of the reset: the repeated 0/0 is enough."""
    store = reset_run.extra["root"] / "imported.db"
    log = next((reset_run.extra["root"] / "trace").iterdir())
    p = session.compdiag("import", log, "--store", store)
    assert p.returncode == 0, p.stderr
    doc = session.show(store=store)
    assert [(c["compile_id"], c["co_name"]) for c in doc["compiles"]] == \
        [("0/0", "scale"), ("0/0@1", "scale")]


def test_a_compile_that_restarted_then_a_reset_are_two_generations() -> None:
    """An imported log without capture's reset record (benchmarks/probes25
    reset_bench_fullgraph_toggle): the first 0/0 broke its graph and restarted as 0/0_1,
    which reported the metrics; after torch._dynamo.reset() a new 0/0 started. Its id was
    compared with the attempt's, so the new compile was merged into the old one. A start
    after its compile (any attempt of it) ended is a new generation; the restart itself is
    not."""
    from compdiag.ingest.generations import Generations

    g = Generations()
    assert g.qualify("0/0", starts=True) == "0/0"
    assert g.qualify("0/0_1", starts=True) == "0/0_1"
    assert g.qualify("0/0_1", ends=True) == "0/0_1"
    assert g.qualify("1/0", starts=True) == "1/0"
    assert g.qualify("0/0", starts=True) == "0/0@1"
    assert g.qualify("0/0", ends=True) == "0/0@1"


def test_a_miss_after_a_reset_whose_key_differs_in_its_inputs_only_is_information(
        tmp_path: Path) -> None:
    """benchmarks/probes25 reset_bench_fullgraph_toggle: after torch._dynamo.reset() the
    function traced other code (a whole graph, not the half before a break), and its FX
    cache miss against the compile before the reset, a key differing in the graph and its
    inputs only, was a problem with "change configs before the first compile". Another graph
    is expected to miss, as across runs: information. A config that changed stays a problem
    (test_a_compile_id_torch_reuses_after_a_reset_stays_two_compiles)."""
    from compdiag.analyses.explain import explain

    user = tmp_path / "model.py"
    user.write_text("import torch\n\ndef f(x):\n    return x.sin()\n\nf(x)\n"
                    "torch._dynamo.reset()\nf(y)\n")
    w = Writer(tmp_path / "s.db")
    run_id = w.begin_run(source="run", argv=[str(user)], cwd=str(tmp_path))
    ing = Ingestor(w, run_id)
    _compile(ing, user, fallback_random=False, key="k1",
             extra=("[e1] example_inputs[0]: TensorMetadata(shape=torch.Size([2]))",))
    ing.event(RESET_KIND, None, {}, json.dumps(
        {"filename": str(user), "lineno": 7, "line": "torch._dynamo.reset()"}))
    _compile(ing, user, fallback_random=False, key="k2",
             extra=("[e2] example_inputs[0]: TensorMetadata(shape=torch.Size([3]))",))
    ing.flush()
    w.end_run(run_id, exit_code=0, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        (d,) = explain(r, run_id)
    assert d.kind == "cache" and d.compile_id == "0/0@1" and d.severity == "info", d
    assert "before torch._dynamo.reset()" in d.reason


def test_a_matmul_precision_switch_is_the_line_of_the_miss(tmp_path: Path) -> None:
    """probes40f matmul_precision_cache_miss, blind: `torch.set_float32_matmul_precision(
    "high")` between experiments changed the key's cuda_matmul_settings; the miss was said at
    the call, not at the setting. Fails on the code before (the call's line)."""
    from compdiag.analyses.explain import explain

    user, w, run_id, ing = fed_run(tmp_path, "import torch\n\ndef f(x):\n    return x.sin()"
                                   "\n\nf(x)\ntorch._dynamo.reset()\n"
                                   "torch.set_float32_matmul_precision('high')\nf(x)\n")
    for mode, key in (("ieee", "k1"), ("tf32", "k2")):
        _compile(ing, user, fallback_random=False, key=key, extra=(
            f"[m{mode}] cuda_matmul_settings: ('{mode}', True, True)",))
    ing.flush()
    keep_sources(w, run_id)
    w.close()
    with Reader(tmp_path / "s.db") as r:
        (d,) = explain(r, run_id)
    assert "cuda_matmul_settings" in d.reason, d.reason
    assert d.user_frame.lineno == 8, d.user_frame
