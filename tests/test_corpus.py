"""Every CPU corpus script, end to end: `compdiag run` it, `compdiag explain --json` it, and the
top diagnosis must match the script's sidecar (corpus/NAME.expected.json).

The scripts run a few at a time in a thread pool (each its own store, the session's shared
Inductor cache directory but for the cache_* cases), started once for the selected cases of a
half of the corpus (conftest.py runs the halves on two xdist workers); each test waits only for
its own script. COMPDIAG_CORPUS_JOBS sets the parallelism (default 3)."""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path

import pytest

from compdiag.importer.trace_log import import_trace
from compdiag.importer.trace_writer import glog_prefix, trace_entries
from compdiag.report.bundle import _trace
from compdiag.store.reader import Reader
from compdiag.views.explain import explain_document
from cdtest import WarmPython, base_env, fork_server_env, run_cmd, shared_cache
from corpus_check import (CORPUS, TIMEOUT, case_problems, corpus_half, ending_problems,
                          load_sidecar, run_case)
from locate_check import (consequence_problems, def_line_problems, ended_node_problems,
                          library_line_problems)
from principles_check import principle_problems

SIDECARS = sorted(CORPUS.glob("*.expected.json"))
JOBS = int(os.environ.get("COMPDIAG_CORPUS_JOBS", "3"))
TORCH = version("torch")
# Cases captured by a fresh interpreter even when the session has a fork server (cdtest's
# fork_server_env, capture/zygote.py): the ones about how a process ends (program_*: exits
# and exceptions outside compiled code, end_*: a native abort) and about ranks (ddp_*), so
# the users' own path keeps running over real corpus scripts.
EXEC_PATH = ("program_", "end_", "ddp_")


class CorpusRuns:
    """name -> Future of run_case. A half's selected cases are submitted together, longest
    first, the first time any of them is read: under xdist a worker captures only the half it
    was given; without xdist both halves run, the second submitted as soon as it is needed."""

    def __init__(self, selected: list[str], workdir: Path, cache: Path, fresh: Path) -> None:
        self.selected, self.workdir, self.cache, self.fresh = selected, workdir, cache, fresh
        self.pool = ThreadPoolExecutor(max_workers=max(1, JOBS))
        self.futures: dict[str, Future] = {}

    def __getitem__(self, name: str) -> Future:
        if name not in self.futures:
            half = corpus_half(CORPUS / f"{name}.expected.json")
            for n in self.selected:
                if corpus_half(CORPUS / f"{n}.expected.json") == half:
                    self.futures[n] = self.pool.submit(
                        self._run, n, self._cache(n),
                        load_sidecar(CORPUS / f"{n}.expected.json", TORCH).get("run_args"))
        return self.futures[name]

    def _run(self, name: str, cache: Path, run_args: list[str] | None) -> dict:
        """run_case in a pool thread; an ordinary case waits there for the fork server."""
        return run_case(name, self.workdir, cache, run_args,
                        extra_env=None if name.startswith(EXEC_PATH) else fork_server_env())

    def _cache(self, name: str) -> Path:
        """The session's shared Inductor cache, except for the cache_* cases: their diagnosis
        is about a cache miss, so each compiles into its own fresh directory (a hit left by an
        earlier run of the same graph would hide it)."""
        if not name.startswith("cache_"):
            return self.cache
        own = self.fresh / name
        own.mkdir()
        return own


@pytest.fixture(scope="session")
def corpus_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The selected cases' runs (CorpusRuns), each captured once whatever reads it."""
    selected = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "sidecar" in callspec.params and \
                item.module.__name__.endswith("test_corpus"):
            selected.append(callspec.params["sidecar"].name[:-len(".expected.json")])
    selected = list(dict.fromkeys(selected))  # one run per case, whatever reads it
    workdir = tmp_path_factory.mktemp("corpus")
    # Inductor cases are the slow ones: start them first so the pool drains evenly.
    selected.sort(key=lambda n: (not n.startswith(("acc_backend", "fail_", "acc_", "perf_")),
                                 not n.startswith("acc_backend"), n))
    runs = CorpusRuns(selected, workdir, shared_cache(), tmp_path_factory.mktemp("corpus-own"))
    yield runs
    runs.pool.shutdown(wait=False, cancel_futures=True)


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_corpus_top_diagnosis(sidecar: Path, corpus_runs: CorpusRuns) -> None:
    """A sidecar's `known_gap` (why compdiag misses it today) keeps a case whose right
    expectation does not pass yet visible as xfail, and strictly so: once the case passes, the
    test fails until the key is removed."""
    spec = load_sidecar(sidecar, TORCH)
    name = sidecar.name[:-len(".expected.json")]
    result = corpus_runs[name].result(timeout=TIMEOUT + 200)
    assert result["doc"] is None or result["doc"]["schema_version"] >= 1
    missing = premise_missing(spec)
    if missing:
        pytest.skip(f"{name}: the issue's eager behaviour does not show on this machine "
                    f"({missing})")
    problems = case_problems(result, spec)
    top = (result["doc"] or {}).get("diagnoses", [None])[:1]
    if spec.get("known_gap"):
        assert problems, f"{name} passes now: remove its sidecar's known_gap"
        pytest.xfail(f"known gap: {spec['known_gap']} ({'; '.join(problems)})")
    assert not problems, f"{name}: " + "; ".join(problems) + f"\n top: {json.dumps(top)[:1500]}"


def premise_missing(spec: dict) -> str | None:
    """A sidecar's `premise`: the eager behaviour the issue is about, as a statement that
    raises where it does not hold (e.g. a kernel whose result differs by CPU: the vectorized
    gelu of #185770 gives NaN at +inf with AVX-512 and +inf with AVX2). Where it does not
    hold, the case has nothing to find on this machine: the test says so instead of failing
    or passing. What failed, or None."""
    premise = spec.get("premise")
    if not premise:
        return None
    try:
        exec(compile(premise["check"], "<premise>", "exec"), {})
    except Exception as exc:  # the premise's own assertion, or anything it raised
        return f"{premise['what']}: {type(exc).__name__} {exc}".strip()
    return None


def _case(sidecar: Path, corpus_runs: CorpusRuns) -> dict:
    return corpus_runs[sidecar.name[:-len(".expected.json")]].result(timeout=TIMEOUT + 200)


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_corpus_abnormal_end_is_explained(sidecar: Path, corpus_runs: CorpusRuns
                                          ) -> None:
    """Issue 29 §3's invariant over every corpus run (the stores test_corpus_top_diagnosis
    made, no new compile): a run that exited non-zero has a problem diagnosis saying how it
    ended. On main a run its program ended with sys.exit, os._exit or a signal had none."""
    result = _case(sidecar, corpus_runs)
    assert result["doc"] is not None, result["explain_stderr"]
    assert not ending_problems(result), ending_problems(result)


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_corpus_no_def_line_over_a_deeper_frame(sidecar: Path, corpus_runs: CorpusRuns
                                                ) -> None:
    """Issue 29 §1's property over every corpus run (the stores test_corpus_top_diagnosis
    made, no new compile): no diagnosis points at its compiled function's def or decorator
    line while the store holds the call that triggered that compile (tests/locate_check.py).
    On main it caught 8 runs: fail_error_on_recompile (the RecompileError at `def gate`, not
    the float64 call at line 16 torch's traceback names), fail_runtime (the kernel's runtime
    error at `def block`, not the call at line 12), acc_inverse_ill_conditioned (a cache
    bypass and a fallback kernel at the def line, the call at line 17), and the AOTAutograd
    cache bypass at the def line of fusion_outer_softmax and perf_fallback_{cumsum,kthvalue,
    median}."""
    result = _case(sidecar, corpus_runs)
    assert result["doc"] is not None, result["explain_stderr"]
    with Reader(Path(result["store"])) as r:
        problems = def_line_problems(r, r.resolve_run(None), result["doc"]["diagnoses"])
        # §1's library frames (tests/test_library_frames.py): no line in torch or a library,
        # and an op's diagnosis at the user line its node's stack holds
        problems += library_line_problems(r, r.resolve_run(None), result["doc"]["diagnoses"])
        # §1 for every backend: an end in a node the store names is at that node's line
        # (tests/test_backend_nodes.py; on main an eager backend's end was at the call)
        problems += ended_node_problems(r, r.resolve_run(None), result["doc"]["diagnoses"])
    assert not problems, problems


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_corpus_no_consequence_ranks_above_its_cause(sidecar: Path,
                                                    corpus_runs: CorpusRuns) -> None:
    """Issue 29 §2's property over every corpus run (the stores test_corpus_top_diagnosis
    made, no new compile): a diagnosis the kinds' relations make another's consequence is
    folded under that cause, which ranks at least where the consequence would have
    (tests/locate_check.py). On main the folds dropped the consequence and left the cause at
    its own, lower score: gb_context_manager and gb_warnings (the graph break ranked at 370
    and 310, below the 800 of the skipped frame's failure folded into it), and
    fail_recompile_limit_params (torch's FailOnRecompileLimitHit shown on its own, as the
    crash, above the recompile of the guard that kept failing)."""
    result = _case(sidecar, corpus_runs)
    with Reader(Path(result["store"])) as r:
        problems = consequence_problems(r, r.resolve_run(None))
    assert not problems, problems


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_corpus_printed_commands_run_as_printed(sidecar: Path, corpus_runs: CorpusRuns,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """"Every command compdiag prints must work when pasted", as a property over every
    corpus run (the stores test_corpus_top_diagnosis made, no new compile): each `compdiag
    ...` line in explain's document (a fix, a hint, an explanation) parses with compdiag's
    parser, and a read command runs against the store it names while a re-run names a RUN
    in that store and a SCRIPT that exists (tests/test_printed_commands.py's rule, until
    now held over hand-built stores only)."""
    from test_printed_commands import check_printed, command_lines, strings_in

    result = _case(sidecar, corpus_runs)
    assert result["doc"] is not None, result["explain_stderr"]
    lines = [line for text in strings_in(result["doc"]["diagnoses"])
             for line in command_lines(text)]
    for line in dict.fromkeys(lines):
        check_printed(line, Path(result["store"]).parent, monkeypatch)


@pytest.fixture(scope="session")
def warm_python():
    """One warm interpreter (cdtest.WarmPython: torch imported once, a fork per run) for the
    `compdiag minify` runs of this worker's corpus stores and the plain runs of the repros
    they write, in the environment they always ran in (base_env with the shared cache), as
    test_minify_e2e's pipelines do: each was a fresh interpreter importing torch (about 5
    CPU s). Started the first time a test needs it."""
    warm = WarmPython(base_env(shared_cache()))
    yield warm
    warm.close()


def _minified(result: dict, tmp_path: Path, warm: WarmPython) -> tuple[dict, dict[str, str]]:
    """`compdiag minify --json` of a corpus case's store into tmp_path/repro.py: its document
    and the environment it ran in."""
    env = warm.env
    m = warm.run([sys.executable, "-m", "compdiag", "minify", "--store", result["store"],
                  "--json", "-o", str(tmp_path / "repro.py")], env=env, cwd=tmp_path)
    assert m.returncode == 0, (result["run_stderr"], m.stderr[-3000:])
    return json.loads(m.stdout), env


# The corpus' failures of a lazily compiled backward graph and what torch raises for each.
BACKWARD_FAILURES = {"fail_backward_compile": "CppCompileError: C++ compile error",
                     "fail_backward_runtime": "RuntimeError: unhandled error"}


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", [CORPUS / f"{n}.expected.json" for n in BACKWARD_FAILURES],
                         ids=list(BACKWARD_FAILURES))
def test_corpus_backward_failure_minifies(sidecar: Path, corpus_runs: CorpusRuns,
                                          tmp_path: Path, warm_python: WarmPython) -> None:
    """Issue 33: each corpus failure of the backward graph AOTAutograd compiles lazily at the
    first backward() minifies, from the store test_corpus_top_diagnosis made (no second
    capture), to a 1-minimal repro.py of at most 40 lines that plain python fails with
    torch's own error, at the op of the user's diagnosed line (relu). (The scripts turn
    AOTAutograd's cache off: under a warm cache, outside this session's fresh one, the
    backward compiled before the injector was set was loaded and nothing failed.)"""
    name = sidecar.name[:-len(".expected.json")]
    doc, env = _minified(_case(sidecar, corpus_runs), tmp_path, warm_python)
    want = BACKWARD_FAILURES[name]
    assert want.startswith(doc["failure"]["exc_type"] + ": "), doc["failure"]
    assert doc["ops"] == ["torch.ops.aten.relu.default"] and doc["one_minimal"], doc
    line = (CORPUS / f"{name}.py").read_text().splitlines()[load_sidecar(sidecar)["lineno"] - 1]
    assert "torch.relu(" in line
    text = (tmp_path / "repro.py").read_text()
    assert doc["repro_lines"] == len(text.splitlines()) <= 40
    assert doc["queries"] <= doc["initial_nodes"], doc
    repro = warm_python.run([sys.executable, "-I", "repro.py"], env=env, cwd=tmp_path)
    assert repro.returncode != 0 and want in repro.stderr, repro.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", [CORPUS / "acc_grad_atan2_amin.expected.json"],
                         ids=["acc_grad_atan2_amin"])
def test_corpus_wrong_gradient_minifies(sidecar: Path, corpus_runs: CorpusRuns,
                                        tmp_path: Path, warm_python: WarmPython) -> None:
    """Issue 33: the corpus' real wrong gradient (pytorch/pytorch#186799, no injector) minifies
    from the store test_corpus_top_diagnosis made (no second capture; under this session's
    shared cache its backward may be loaded from AOTAutograd's cache, whose graph capture
    keeps too) to a 1-minimal repro.py of at most 40 lines that plain python fails: the backward
    graph's recomputed atan2 compared exactly with the saved amin. Before, the backward graph
    of a cache hit was not kept, and the one kept "did not reproduce when compiled again" (its
    float64 reference NaN, so same() passed any compiled value)."""
    doc, env = _minified(_case(sidecar, corpus_runs), tmp_path, warm_python)
    assert doc["failure"]["kind"] == "accuracy" and doc["one_minimal"], doc
    assert doc["ops"][:2] == ["torch.ops.aten.atan2.default", "torch.ops.aten.eq.Tensor"], doc
    assert "first_differing" in doc, doc   # the probe ran (it names nothing here: see docs)
    text = (tmp_path / "repro.py").read_text()
    assert doc["repro_lines"] == len(text.splitlines()) <= 40
    repro = warm_python.run([sys.executable, "-I", "repro.py"], env=env, cwd=tmp_path)
    assert repro.returncode != 0 and "Tensor-likes are not close" in repro.stderr, \
        repro.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", [CORPUS / "acc_dropout_not_comparable.expected.json"],
                         ids=["acc_dropout_not_comparable"])
def test_corpus_random_only_difference_is_not_minified(sidecar: Path, corpus_runs: CorpusRuns,
                                                      tmp_path: Path) -> None:
    """A graph whose only differences come from Inductor's own random numbers (dropout) has
    nothing to minify: `compdiag minify` says so in one line, with the verdict explain and
    `compdiag check` give it, and writes nothing. Before, it compiled the graph again and
    said "does not reproduce ... when compiled again (it passes)" (or shrank a chance
    difference), as if the check had been a fluke."""
    result = _case(sidecar, corpus_runs)
    m = run_cmd([sys.executable, "-m", "compdiag", "minify", "--store", result["store"],
                 "-o", str(tmp_path / "repro.py")], env=base_env(shared_cache()), cwd=tmp_path)
    lines = m.stderr.strip().splitlines()
    assert m.returncode == 2 and len(lines) == 1, m.stderr[-3000:]
    assert "nothing to minify" in lines[0] and "not comparable with eager" in lines[0] \
        and "fallback_random" in lines[0], lines
    assert not (tmp_path / "repro.py").exists()


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_corpus_principles_hold(sidecar: Path, corpus_runs: CorpusRuns) -> None:
    """Issue 29 §2 (by the store's facts) to §6 over every corpus run (the stores
    test_corpus_top_diagnosis made, no new compile; tests/principles_check.py, and
    tests/test_principles.py for what each rejects). On main it caught end_abort_oob_index:
    the abort's diagnosis took compdiag's own writer thread from faulthandler's dump (no
    user line, while the dump holds the user's thread at line 13)."""
    result = _case(sidecar, corpus_runs)
    assert result["doc"] is not None, result["explain_stderr"]
    with Reader(Path(result["store"])) as r:
        problems = principle_problems(r, r.resolve_run(None), result["doc"]["diagnoses"])
    assert not problems, problems


def _top(doc: dict) -> tuple | None:
    d = next(iter(doc.get("diagnoses") or []), None)
    if d is None:
        return None
    return (d["kind"], d["stage"], d["reason"], d["user_frame"]["filename"],
            d["user_frame"]["lineno"])


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_corpus_report_import_round_trip(sidecar: Path, corpus_runs: CorpusRuns,
                                         tmp_path: Path) -> None:
    """Issue 30 item 4: the trace log `compdiag report` writes (its own `_trace`, as in the
    archive) imported again gives the same top diagnosis. On main, import stored compdiag's
    records (the program's exception, run-time failures, accuracy checks) under kind
    `compdiag` and never replayed them: a failing run imported as "no problems found"."""
    result = _case(sidecar, corpus_runs)
    want = _top(result["doc"] or {})
    if want is None:
        pytest.skip("no diagnosis to carry over")
    with Reader(Path(result["store"])) as r:
        run_id = r.resolve_run(None)
        run = r.run(run_id)
        entries = list(trace_entries(r, run_id))
    log = tmp_path / "torch_trace.log"
    text, dropped = _trace(entries, glog_prefix(run.get("started_at") or 0.0, run.get("pid")),
                           lambda s: s, set(), 10**9)
    assert dropped is None
    log.write_bytes(text)
    (imported,) = import_trace(tmp_path / "imported.db", log, workers=1)
    with Reader(tmp_path / "imported.db") as r:
        got = explain_document(r, imported.run_id)
    assert got["run"]["exit_code"] == (result["run_rc"] or None)
    assert _top(got) == want


def test_every_corpus_script_has_a_sidecar() -> None:
    scripts = {p.stem for p in CORPUS.glob("*.py")} | {
        f"gpu/{p.stem}" for p in (CORPUS / "gpu").glob("*.py")}
    sidecars = {p.name[:-len(".expected.json")] for p in CORPUS.glob("*.expected.json")} | {
        f"gpu/{p.name[:-len('.expected.json')]}" for p in (CORPUS / "gpu").glob("*.expected.json")}
    assert scripts == sidecars, scripts ^ sidecars
    for path in sorted(CORPUS.rglob("*.expected.json")):
        spec = load_sidecar(path)
        assert (path.parent / spec["script"]).exists(), path


def test_per_torch_expectations_apply_from_their_version_on(tmp_path: Path) -> None:
    sidecar = tmp_path / "x.expected.json"
    sidecar.write_text(json.dumps({"script": "x.py", "kind": "failure", "lineno": 3,
                                   "reason": "old words", "torch": {
                                       "2.14": {"reason": "newer words"},
                                       "2.15": {"reason": "newest", "lineno": 4}}}))
    assert load_sidecar(sidecar, "2.13.0+cpu")["reason"] == "old words"
    assert load_sidecar(sidecar, "2.14.1")["reason"] == "newer words"
    spec = load_sidecar(sidecar, "2.16.0.dev20261201+cu130")
    assert (spec["reason"], spec["lineno"]) == ("newest", 4) and "torch" not in spec


def test_a_case_is_wrong_when_its_exit_status_is_not_the_programs() -> None:
    diag = {"kind": "failure", "stage": "runtime", "reason": "RuntimeError: boom",
            "explanation": "", "fix": "compdiag bisect 1", "user_frame": {
                "filename": "/r/corpus/x.py", "lineno": 3, "line": "y = f(x)"}}
    spec = {"script": "x.py", "kind": "failure", "lineno": 3, "fix": "compdiag bisect"}
    result = {"run_rc": 1, "run_stderr": "", "explain_rc": 0, "explain_stderr": "",
              "doc": {"schema_version": 1, "diagnoses": [diag]}}
    assert case_problems(result, spec) == []
    assert case_problems({**result, "run_rc": 0}, spec) == [
        "the run exited 0, a failure case must not"]
    assert case_problems(result, {**spec, "lineno": 4}) == ["user line 3 != 4"]
    assert case_problems({**result, "doc": {"diagnoses": []}}, spec)[0].startswith(
        "no diagnosis")


def test_a_case_torch_fixed_expects_no_problem() -> None:
    """corpus/acc_int8_matmul_dtype.py: torch 2.15 returns int8 compiled too (pytorch#191308
    fixed), so its sidecar says `"kind": null` from 2.15 on."""
    spec = {"script": "x.py", "kind": None, "lineno": 3}
    info = {"kind": "recompile", "severity": "info", "reason": "automatic dynamic"}
    problem = {"kind": "accuracy", "severity": "problem", "reason": "int8 vs int64"}
    result = {"run_rc": 0, "run_stderr": "", "explain_rc": 0, "explain_stderr": "",
              "doc": {"schema_version": 1, "diagnoses": []}}
    assert case_problems(result, spec) == []
    assert case_problems({**result, "doc": {"diagnoses": [info]}}, spec) == []
    assert case_problems({**result, "doc": {"diagnoses": [problem]}}, spec)[0].startswith(
        "torch fixed this case")
    assert case_problems({**result, "run_rc": 1}, spec) == ["the run exited 1"]
    fixed = load_sidecar(CORPUS / "acc_int8_matmul_dtype.expected.json", "2.15.0")
    assert fixed["kind"] is None
    assert load_sidecar(CORPUS / "acc_int8_matmul_dtype.expected.json",
                        "2.13.0")["kind"] == "accuracy"
