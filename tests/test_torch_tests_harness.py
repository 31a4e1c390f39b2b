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
    """One pytest process for the two derivable cases, a store each, explain scored."""
    from sweep import sweep

    rows, summary = sweep(SRC, [FILE], keyword=None, stores=tmp_path, nice=0,
                          isolated=False)
    by = {r["id"].rsplit("::", 1)[1]: r for r in rows}
    assert len(rows) == 3
    skipped = by["test_no_diagnosis_asserted"]
    assert (skipped["derivable"], skipped["top_right"], skipped["test_outcome"]) == (
        False, None, None)
    for name in ("test_print_under_fullgraph", "test_dtype_recompile_at_the_limit"):
        row = by[name]
        assert row["derivable"] and row["test_outcome"] == "passed", row
        assert row["top_right"] is True and row["top3_right"] is True, row
    assert by["test_print_under_fullgraph"]["kind_got"] == "failure"
    total = summary["table"][-1]
    assert (total["cases"], total["derivable"], total["run"], total["top_right"]) == (
        3, 2, 2, 2)
