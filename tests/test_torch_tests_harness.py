"""The harness that uses PyTorch's own tests as explain's oracle (benchmarks/torch_tests,
issue 28), on a fixture file of this project's own in PyTorch's shape
(tests/fixtures/torch_tests/test/dynamo/oracle_cases.py): collect its cases, derive what a
right diagnosis must contain from each test's assertion, run the derivable ones into a
store each and score explain's top diagnosis."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks" / "torch_tests"))

from collect import collect  # noqa: E402
from derive import derive, parse_message  # noqa: E402

SRC = ROOT / "tests" / "fixtures" / "torch_tests"
FILE = "test/dynamo/oracle_cases.py"


def _by_name():
    return {c.name: c for c in collect(SRC, FILE)}


def test_collects_every_test_method_and_derives_from_the_assertions():
    cases = _by_name()
    assert sorted(cases) == ["test_dtype_recompile_at_the_limit",
                             "test_no_diagnosis_asserted", "test_print_under_fullgraph"]
    gb = derive(SRC, cases["test_print_under_fullgraph"])
    (exp,) = gb.expectations
    assert (exp.kind, exp.gb_code, exp.first_line) == (
        "failure", "GB0059", "Failed to trace builtin operator")
    assert exp.user_line == 'print("abc")'
    lines = (SRC / FILE).read_text().splitlines()
    assert [lines[n - 1].strip() for n in exp.user_linenos] == ['print("abc")']
    rc = derive(SRC, cases["test_dtype_recompile_at_the_limit"])
    assert [(e.kind, e.guards) for e in rc.expectations] == [
        ("recompile", ["tensor 'x' dtype mismatch. expected Float, actual Double"])]
    none = derive(SRC, cases["test_no_diagnosis_asserted"])
    assert not none.derivable and "no assertion names a diagnosis" in none.why_not


def test_parse_message_reads_torch_s_message_shapes():
    logged = parse_message(
        "Graph break in user code at t.py:N\nGraph Break Reason: Failed to handle graph break"
        " gracefully. Graph break encountered:\n\nData-dependent branching\n  Explanation: x"
        "\n\n For more details about this graph break, please visit: https://x/gb/gb0170.html"
        "\n\nUser code traceback:\n  File \"t.py\", line N, in test_a\n    f(x)\n"
        "  File \"t.py\", line N, in fn\n    if x.sum() > 0:\n", "failure")
    assert logged == {"kind": "graph_break", "first_line": "Data-dependent branching",
                      "gb_code": "GB0170", "user_line": "if x.sum() > 0:"}
    limit = parse_message(
        "torch._dynamo hit config.recompile_limit (1)\n   function: 'fn' (t.py:N)\n"
        "   last reason: 0/0: n == 0              # return x + n  # t.py:N in fn\n", "failure")
    assert (limit["kind"], limit["guards"], limit["user_line"]) == (
        "recompile", ["n == 0"], "return x + n")
    # a log line that is no diagnosis, read from an assertExpectedInline (not a raise)
    assert parse_message("call to a lru_cache wrapped function at: x.py:N",
                         "graph_break") is None


def test_judge_holds_the_top_diagnosis_against_each_check():
    from derive import Expectation
    from score import judge

    exp = Expectation(kind="failure", source="t", gb_code="GB0059",
                      first_line="Failed to trace builtin operator", user_line='print("abc")',
                      user_linenos=[7])
    right = {"kind": "failure", "gb_code": "GB0059", "reason": "Unsupported: Failed to trace "
             "builtin operator [GB0059]", "user_frame": {"filename": "/x/test/oracle_cases.py",
                                                         "lineno": 7, "line": 'print("abc")'}}
    other_line = dict(right, user_frame={"filename": "/x/oracle_cases.py", "lineno": 3,
                                         "line": "def fn(x):"})
    as_break = dict(right, kind="graph_break")
    verdict = judge([exp], [as_break, other_line, right], None, FILE)
    assert (verdict["top_right"], verdict["top3_right"], verdict["kind_got"]) == (
        False, True, "graph_break")
    assert verdict["miss_class"] == "graph_break on top where the test expects failure"
    assert judge([exp], [other_line], None, FILE)["miss_class"] == "user line differs"
    assert judge([exp], [], None, FILE)["why"] == "no diagnosis"


def test_graph_count_folds_attempts_and_keeps_compiles_after_a_reset():
    from derive import Expectation
    from score import show_problems

    compiles = [{"compile_id": "0/0", "attempt": 0, "status": "graph_break"},
                {"compile_id": "0/0_1", "attempt": 1, "status": "ok"},
                {"compile_id": "0/0@1", "attempt": 0, "status": "ok"},
                {"compile_id": "1/0", "attempt": 0, "status": "failed"}]
    exp = Expectation(kind="graphs", source="t", count=2)
    assert show_problems(exp, {"compiles": compiles}) == []
    assert show_problems(exp, {"compiles": compiles[:2]}) == [
        "1 compiled graphs in show (the test counts 2)"]


@pytest.mark.slow
def test_sweep_runs_scores_and_counts_the_fixture(tmp_path):
    """One pytest process for the fixture's cases, a store each, explain scored, and every
    store held to issue 29's principles (tests/principles_check.py). With all_cases the case
    no rule derives from runs too, held to the principles alone and kept out of the table's
    scores. Before the principles were checked here, rows had no `principles` and the
    summary no count of them."""
    from sweep import sweep

    rows, summary = sweep(SRC, [FILE], keyword=None, stores=tmp_path, nice=0,
                          isolated=False, all_cases=True)
    by = {r["id"].rsplit("::", 1)[1]: r for r in rows}
    assert len(rows) == 3
    underived = by["test_no_diagnosis_asserted"]
    assert (underived["derivable"], underived["top_right"], underived["test_outcome"],
            underived["principles"]) == (False, None, "passed", [])
    for name in ("test_print_under_fullgraph", "test_dtype_recompile_at_the_limit"):
        row = by[name]
        assert row["derivable"] and row["test_outcome"] == "passed", row
        assert row["top_right"] is True and row["top3_right"] is True, row
        assert row["principles"] == [], row
    assert by["test_print_under_fullgraph"]["kind_got"] == "failure"
    total = summary["table"][-1]
    assert (total["cases"], total["derivable"], total["run"], total["top_right"]) == (
        3, 2, 2, 2)
    assert (summary["principles"]["stores"], summary["principles"]["problems"]) == (3, 0)


@pytest.mark.slow
def test_a_failed_tests_exception_is_how_its_run_ended(tmp_path):
    """The plugin records the exception that failed a test as its run's program exception,
    so the store says how the run ended at the test's line ("your own check at line 16
    failed: `self.assertEqual(...)`"), as `compdiag run` does for a script's uncaught one.
    Before, the store held exit status 1 and nothing else: "exited with status 1; nothing
    recorded says how", whose fix blamed native code calling exit()."""
    from sweep import _cli_json, sweep
    from torch_tests_capture import store_for

    rows, summary = sweep(SRC, ["test/dynamo/oracle_ends.py"], keyword=None, stores=tmp_path,
                          nice=0, isolated=False, all_cases=True)
    (row,) = rows
    assert row["test_outcome"].startswith("failure") and row["principles"] == [], row
    doc = _cli_json("explain", "--store",
                    str(store_for(tmp_path, "oracle_ends.py::OracleEnds::test_own_check_fails")))
    top = doc["diagnoses"][0]
    assert top["kind"] == "program" and "line 16" in top["reason"], top
    assert top["user_frame"]["lineno"] == 16, top["user_frame"]


def test_principles_summary_counts_problems_by_principle_and_file():
    """The sweep's count of principle problems: by section and per file, a store not run
    (principles None) not counted as checked."""
    from sweep import principles_summary

    rows = [{"id": "a.py::C::t1", "principles": ["§3: silent end", "§1: def line"]},
            {"id": "a.py::C::t2", "principles": []},
            {"id": "b.py::C::t3", "principles": ["§3: another"]},
            {"id": "b.py::C::t4", "principles": None}]
    got = principles_summary(rows)
    assert (got["stores"], got["with_problems"], got["problems"]) == (3, 2, 3)
    assert got["by_principle"] == {"§3": 2, "§1": 1}
    assert got["by_file"] == {"a.py": {"stores": 2, "with_problems": 1, "problems": 2},
                              "b.py": {"stores": 1, "with_problems": 1, "problems": 1}}


def test_a_counter_reset_between_its_assertions_adds_its_phases():
    """`assertEqual(cnts.frame_count, 2)`, `cnts.clear()` (or `cnts.frame_count = 0`), then
    `assertEqual(cnts.frame_count, 1)`: the test compiled 3 graphs, each phase's last count
    summed. Before, the last assertion alone (1) was the expectation, and show's 3 compiles
    of test_pgo.py's four passing tests were scored as misses."""
    import ast
    import textwrap

    from derive import Expectation, _graphs_total

    src = textwrap.dedent("""\
        def test_basic(self):
            f(a)
            f(b)
            self.assertEqual(cnts.frame_count, 2)
            cnts.clear()
            f(c)
            self.assertEqual(cnts.frame_count, 1)
            cnt.frame_count = 0
            g(d)
            self.assertEqual(cnt.frame_count, 1)
        """)
    fn = ast.parse(src).body[0]

    def graphs(line, n, counter):
        return Expectation(kind="graphs", source=f"line {line} (frame_count)", count=n,
                           counter=counter)

    exps, why = _graphs_total(fn, [graphs(4, 2, "cnts"), graphs(7, 1, "cnts"),
                                   graphs(10, 1, "cnt")])
    assert why == "" and [e.count for e in exps] == [4]
    exps, _ = _graphs_total(fn, [graphs(4, 2, "cnts"), graphs(4, 2, "cnts")])
    assert [e.count for e in exps] == [2]  # asserted twice in one phase: counted once


CACHES = "test/dynamo/oracle_caches.py"


def _cache_cases():
    return {(c.cls, c.name): c for c in collect(SRC, CACHES)}


def _expected(case):
    return {e.counter: (e.count, e.at_least) for e in derive(SRC, case).expectations
            if e.kind == "cache"}


def test_inherited_tests_are_cases_of_the_class_that_runs_them():
    """A class whose body is `pass` runs its base's tests again (pytest collects
    `FILE::BundledCacheCases::test_x`): collected as its own cases. Regression (issue 28):
    before, only classes that defined tests themselves had cases, and test_aot_autograd_cache's
    AOTAutogradCacheBundledTests (57 tests) was missing."""
    cases = _cache_cases()
    own = sorted(n for c, n in cases if c == "CacheCases")
    assert sorted(n for c, n in cases if c == "BundledCacheCases") == own
    assert cases[("BundledCacheCases", "test_phases")].owner == "CacheCases"


def test_cache_counters_are_totals_over_the_test():
    """Running totals: the last value asserted in each phase between counters.clear(), summed;
    a config branch read from the class's patch (else torch's default); a helper's
    parameters bound from the call. Regression (issue 28): before, every assertEqual on a
    counter was an expectation of its own (hit == 0 and hit == 1 of the same test could not
    both hold of one store), and both arms of an `if` were read."""
    cases = _cache_cases()
    assert _expected(cases[("CacheCases", "test_hit_after_reset")]) == {
        "aot_autograd.autograd_cache_miss": (1, False),
        "aot_autograd.autograd_cache_hit": (1, False)}
    assert _expected(cases[("CacheCases", "test_phases")]) == {
        "inductor.fxgraph_cache_miss": (1, False)}  # hit: not asserted in the first phase
    assert _expected(cases[("CacheCases", "test_helper")]) == {
        "aot_autograd.autograd_cache_miss": (1, False),
        "aot_autograd.autograd_cache_hit": (1, False)}
    from torch._functorch import config as functorch_config

    default = 0 if functorch_config.bundled_autograd_cache else 1
    assert _expected(cases[("CacheCases", "test_config_branch")]) == {
        "inductor.fxgraph_cache_miss": (default, False)}
    assert _expected(cases[("BundledCacheCases", "test_config_branch")]) == {
        "inductor.fxgraph_cache_miss": (0, False)}
    loop = derive(SRC, cases[("CacheCases", "test_in_a_loop")])
    assert not loop.derivable and "in a loop" in loop.why_not


def test_a_raised_bypass_gives_its_reason():
    (fail, bypass) = derive(SRC, _cache_cases()[("CacheCases", "test_bypass_raised")]
                            ).expectations
    assert (fail.kind, fail.first_line) == (
        "failure", "BypassAOTAutogradCache: Unsupported call_function target")
    assert (bypass.counter, bypass.count, bypass.at_least, bypass.reason) == (
        "aot_autograd.autograd_cache_bypass", 1, True, "Unsupported call_function target")


def test_cache_and_trace_expectations_held_against_show():
    from derive import Expectation
    from score import show_problems

    caches = [{"compile_id": "0/0", "cache": "aotautograd", "result": "miss", "reason": None},
              {"compile_id": "0/0@1", "cache": "aotautograd", "result": "hit", "reason": None},
              {"compile_id": "1/0", "cache": "aotautograd", "result": "bypass",
               "reason": "Unsupported call_function target foo"}]
    hits = Expectation(kind="cache", source="t", counter="aot_autograd.autograd_cache_hit",
                       count=1)
    assert show_problems(hits, {"caches": caches}) == []
    assert show_problems(hits, {"caches": caches[:1]}) == [
        "0 aot cache hits in show (the test counts 1)"]
    bypass = Expectation(kind="cache", source="t", counter="aot_autograd.autograd_cache_bypass",
                         count=1, at_least=True, reason="Unsupported call_function target")
    assert show_problems(bypass, {"caches": caches}) == []
    (trace,) = derive(SRC, _cache_cases()[("TraceCases", "test_records_of_a_graph_break")]
                      ).expectations
    assert (trace.compile_ids, trace.restarted, trace.records) == (
        ["0/0", "1/0"], ["0/0"], {"aotautograd_cache_miss": 1, "fx_graph_cache_miss": 1})
    compiles = [{"compile_id": "0/0", "attempt": 0}, {"compile_id": "0/0_1", "attempt": 1},
                {"compile_id": "1/0", "attempt": 0}]
    show = {"compiles": compiles, "caches": [
        {"cache": "aotautograd", "result": "miss"}, {"cache": "fx_graph", "result": "miss"}]}
    assert show_problems(trace, show) == []
    assert show_problems(trace, dict(show, compiles=compiles[:1])) == [
        "compiles ['0/0'] in show (the trace names ['0/0', '1/0'])",
        "restarted compiles [] in show (the trace restarts ['0/0'])"]


def test_a_parametrized_method_is_scored_per_instance_that_ran():
    """torch's `@parametrize` methods run only as instances (`test_x_device_cpu`), so the
    sweep used to count all of them "not run" (9 cases on torch 2.13, issue 28). Now the
    sweep asks pytest for `Class::test_x_*` and scores each instance that ran; a key that
    is another method of the class (`test_x_all`, a test of its own) is not an instance."""
    import types

    from collect import Case
    from sweep import _selector, instances
    from torch_tests_capture import pytest_collection_modifyitems

    case = Case("test/dynamo/f.py", "T", "test_x", 1, 2, ("parametrize",))
    plain = Case("test/dynamo/f.py", "T", "test_y", 3, 4, ())
    assert _selector(case) == "T::test_x_*" and _selector(plain) == "T::test_y"
    outcomes = {"T::test_x_device_cpu": "passed", "T::test_x_device_cuda": "skipped: gpu",
                "T::test_x_all": "passed", "T::test_y": "passed"}
    got = instances(case, outcomes, {"test_x", "test_y", "test_x_all"})
    assert [c.name for c in got] == ["test_x_device_cpu", "test_x_device_cuda"]
    assert got[0].id == "test/dynamo/f.py::T::test_x_device_cpu"

    items = [types.SimpleNamespace(nodeid=f"f.py::{k}") for k in
             ("T::test_x_device_cpu", "T::test_xa", "T::test_y", "T::test_z")]
    deselected = []
    config = types.SimpleNamespace(hook=types.SimpleNamespace(
        pytest_deselected=lambda items: deselected.extend(items)))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COMPDIAG_TORCH_TESTS_ONLY", '["T::test_x_*", "T::test_y"]')
        pytest_collection_modifyitems(config, items)
    assert [i.nodeid for i in items] == ["f.py::T::test_x_device_cpu", "f.py::T::test_y"]
    assert [i.nodeid for i in deselected] == ["f.py::T::test_xa", "f.py::T::test_z"]


def test_a_longer_parametrized_method_keeps_its_own_instances():
    """Regression (session 20's sweep of test_ctx_manager.py): `test_generic_context_manager`
    and `test_generic_context_manager_with_graph_break` are both parametrized, and every
    instance of the longer one (`..._with_graph_break_CustomizedCtxManager`) also starts with
    the shorter one's name: it was scored twice, once against the other method's expected
    graph count, so one store counted as two rows. Failed on main: the shorter method got
    four instances."""
    from collect import Case
    from sweep import instances

    short = Case("test/dynamo/f.py", "T", "test_g", 1, 2, ("parametrize",))
    longer = Case("test/dynamo/f.py", "T", "test_g_with_break", 3, 4, ("parametrize",))
    outcomes = {"T::test_g_A": "passed", "T::test_g_b": "passed",
                "T::test_g_with_break_A": "passed", "T::test_g_with_break_b": "passed"}
    methods = {"test_g", "test_g_with_break"}
    assert [c.name for c in instances(short, outcomes, methods)] == ["test_g_A", "test_g_b"]
    assert [c.name for c in instances(longer, outcomes, methods)] == \
        ["test_g_with_break_A", "test_g_with_break_b"]


def test_a_graph_count_some_compiles_escape_is_not_derived():
    """Regression (session 20's sweep: test_hooks.py, test_ctx_manager.py,
    test_autograd_function.py): show counts every graph of the run, a test's counter only
    those it saw. Not derivable, with the reason, where the count is asserted under an `if`
    (a parametrization's), where the counter is bound in a loop (a new one after each
    reset), or where the test also compiles with a named backend or turns compiled autograd
    on with a compiler that names no counter. Each was scored a miss on main ("10 compiled
    graphs in show (the test counts 2)")."""
    import ast
    import textwrap

    from derive import Expectation, _graphs_total

    def why(body, line):
        fn = ast.parse(textwrap.dedent(body)).body[0]
        exp = Expectation(kind="graphs", source=f"line {line} (frame_count)", count=2,
                          counter="cnts")
        return _graphs_total(fn, [exp])[1]

    assert "under an `if`" in why("""\
        def test_x(self):
            opt(x)
            if Ctx is A:
                self.assertEqual(cnts.frame_count, 2)
        """, 4)
    assert "bound more than once (cnts)" in why("""\
        def test_x(self):
            for m in (a, b):
                cnts = CompileCounter()
                torch.compile(m, backend=cnts)(x)
                self.assertEqual(cnts.frame_count, 2)
        """, 5)
    assert "outside the counters" in why("""\
        def test_x(self):
            torch.compile(f, backend="aot_eager")(x)
            with compiled_autograd._enable(functools.partial(torch.compile, backend=cnts)):
                g(x)
            self.assertEqual(cnts.frame_count, 2)
        """, 5)
    assert "outside the counters" in why("""\
        def test_x(self):
            torch.compile(f, backend=cnts)(x)
            with compiled_autograd._enable(compiler_fn):
                g(x)
            self.assertEqual(cnts.frame_count, 2)
        """, 5)
    assert why("""\
        def test_x(self):
            pattern = re.compile("a")
            torch.compile(f, backend=cnts)(x)
            with compiled_autograd._enable(functools.partial(torch.compile, backend=cnts)):
                g(x)
            self.assertEqual(cnts.frame_count, 2)
        """, 6) == ""


def test_an_exception_class_the_test_expects_is_read_from_the_failures_type():
    """test_backends.py's `assertRaises(BackendCompilerFailed)` derives the class name as
    the message's first line; torch's message under it ("backend='inductor' raised:
    AssertionError: ") never spells the class, which the failure carries as its
    `details.exc_type`. The scorer missed it ("torch's message not carried")."""
    from derive import Expectation
    from score import problems

    exp = Expectation(kind="failure", source="line 9 (assertRaises, BackendCompilerFailed)",
                      first_line="BackendCompilerFailed")
    diag = {"kind": "failure", "reason": "AssertionError: `assert x` failed",
            "details": {"exc_type": "BackendCompilerFailed",
                        "torch_message": "backend='inductor' raised:\nAssertionError: "}}
    assert problems(exp, diag, "test_backends.py") == []
    diag["details"]["exc_type"] = "Unsupported"
    assert problems(exp, diag, "test_backends.py")
