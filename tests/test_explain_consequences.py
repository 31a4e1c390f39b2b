"""explain on PyTorch's own tests' miss classes (issue 29, sections 1 and 2; docs/corpus.md's
"misses by class"): the cause ranks above its consequences, torch's own words and line stay.

Each test is a regression test for one class: it fails on the code before its fix. Stores are
built the way a run's are, trace-shaped records through the Ingestor (test_explain's Store);
the records are shaped after torch 2.13's for test/dynamo/test_error_messages.py and
test_recompile_ux.py. No compile."""

from __future__ import annotations

from compdiag.store.reader import Reader
from test_explain import (AOT_FILE, BACKWARD_TWICE, TORCH_FILE, Store, _frames,
                          break_then_resumed_limit, recompile_to_the_limit)

URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"


def _user_call(s: Store, line: int) -> str:
    return f'  File "{s.user}", line {line}, in f\n    line_{line} = {line}\n'


def test_a_break_torch_skipped_the_frame_for_is_one_graph_break_though_the_run_failed(
        tmp_path):
    """torch logged "Failed to handle graph break gracefully. Skipping the function and falling
    back to eager" and went on: its Unsupported is the break's consequence, folded into the
    one graph_break diagnosis, even when the run failed later for another reason (a test's
    own assertion). Before: a fatal `failure` on top of the break."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="Unsupported",
              fail_reason="Call to `torch._dynamo.graph_break()`\n  Explanation: User-inserted "
                          f"graph break.\n\n For more details: {URL.format('gb0025')}")
    s.graph_break("0/0", 7, gb_type="Call to `torch._dynamo.graph_break()`", code="GB0025",
                  skipped=True)
    ended, d = s.explain()  # how the run ended: test_a_run_that_failed_after_torch_caught_...
    assert (d["kind"], d["gb_code"], d["user_frame"]["lineno"]) == ("graph_break", "GB0025", 7)
    assert d["details"]["frame_skipped"]
    assert [c["kind"] for c in d["consequences"]] == ["failure"]
    assert ended["kind"] == "program"


def test_a_run_that_failed_after_torch_caught_its_only_failure_says_how_it_ended(tmp_path):
    """Issue 29 §3, no silent end: the run exited 1 and recorded no exception of its own (a
    torch test whose own assertion failed, pytest exiting 1), and its only compile failure
    was an Unsupported torch caught itself (it skipped the frame, the program went on). That
    failure ended nothing, so the program kind says how the run ended. Caught on main by the
    oracle sweep (test_exc.py's test_unsupported_error on torch 2.13): the program kind stood
    back whenever the run had any failure, the failures kind called none fatal, and no
    diagnosis said the run ended with status 1."""
    from principles_check import ending_problems, ending_rank_problems

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="Unsupported",
              fail_reason=f"missing BUILD_SET handler\n\n For more details: {URL.format('gb0200')}")
    s.graph_break("0/0", 7, gb_type="missing BUILD_SET handler", code="GB0200", skipped=True)
    diags = s.explain()
    assert [d["kind"] for d in diags] == ["program", "graph_break"]
    assert diags[0]["reason"] == "exited with status 1; nothing recorded says how"
    with Reader(s.path) as r:
        assert ending_problems(r, s.run_id, diags) == []
        assert ending_rank_problems(r, s.run_id, diags) == []


def test_a_backend_exception_is_at_the_line_torch_names_not_the_frame_its_metrics_name(
        tmp_path):
    """Issue 29 §1, torch's words: a backend compiler's exception (GB0219) names the user code
    Dynamo was tracing in its developer context ("    Traceback:" and the frames, innermost
    last); that line is the diagnosis', even where compilation_metrics' fail_user_frame names
    another frame (the caller's statement: test_graph_break_messages.py's
    test_backend_fake_tensor_exc, where it named `self.assertExpectedInlineMunged(`). Caught
    on main by the oracle sweep: the failure was at the caller's line, torch's line 195 only
    in the message; the earlier fix held only where the metrics named no frame."""
    s = Store(tmp_path, exit_code=0)
    s.compile("0/0", fail_type="Unsupported", fail_user_frame_filename=str(s.user),
              fail_user_frame_lineno=20, fail_reason=(
                  "Backend compiler exception\n  Explanation: Backend compiler `bad_backend` "
                  "failed with test. Adding a graph break.\n\n  Developer debug context: "
                  f"Backend: bad_backend\n    Exception:test\n    Traceback:\n  {_user_call(s, 9)}"
                  f"\n\n For more details about this graph break, please visit: "
                  f"{URL.format('gb0219')}"))
    top = s.explain()[0]
    assert (top["kind"], top["gb_code"], top["user_frame"]["lineno"]) == ("failure", "GB0219", 9)


def test_a_users_failed_check_ranks_above_a_break_torch_skipped_the_frame_for(tmp_path):
    """Issue 29 §2/§3: the user's own check that failed is how the run ended, and ranks above
    every graph break, recompile and limit that did not cause it. A break whose frame torch
    skipped takes the cost of the compile failure folded under it (800), which ranked it
    above the failed check (`user_check` at 650, "next to accuracy"). Caught on main by the
    oracle sweep (test_exceptions.py's test_nn_reraise on torch 2.13: the "Observed
    exception" break above "your own check at line 472 failed")."""
    from principles_check import ending_rank_problems

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="Unsupported",
              fail_reason=f"Observed exception\n\n For more details: {URL.format('gb0088')}")
    s.graph_break("0/0", 7, gb_type="Observed exception", code="GB0088", skipped=True)
    s.ing.program_exception(None, exc_type="AssertionError", message="1 != 2",
                            frames=[{"filename": str(s.user), "lineno": 30, "name": "<module>",
                                     "line": "assert compiled == eager"}], compiled=None)
    diags = s.explain()
    assert [d["kind"] for d in diags] == ["program", "graph_break"], diags
    assert diags[0]["reason"].startswith("your own check at line 30 failed"), diags[0]
    with Reader(s.path) as r:
        assert ending_rank_problems(r, s.run_id, diags) == []


def test_an_unsupported_that_reached_the_program_is_how_the_run_ended(tmp_path):
    """The other side of the same fact (RunContext.ending_failure): an Unsupported torch did
    not catch (fullgraph=True: no "Skipping the function" line) that ended a run with no
    exception recorded is the fatal failure, and the program kind adds no second ending."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="Unsupported",
              fail_reason=f"missing BUILD_SET handler\n\n For more details: {URL.format('gb0200')}")
    diags = s.explain()
    assert [d["kind"] for d in diags] == ["failure"]
    assert diags[0]["details"]["fatal"] is True


def test_a_crash_after_a_skipped_frame_is_the_crash_not_the_skipped_break(tmp_path):
    """The Unsupported torch caught when it skipped a frame ended nothing: the run's crash
    through compiled code later is the fatal failure on top, the skip stays one graph_break.
    Without it the skipped frame's failure was the fatal one, took the crash in, and was
    folded into the break with it (no crash reported)."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="Unsupported",
              fail_reason="Call to `torch._dynamo.graph_break()`\n  Explanation: User-inserted "
                          "graph break.")
    s.graph_break("0/0", 7, gb_type="Call to `torch._dynamo.graph_break()`", code="GB0025",
                  skipped=True)
    s.compile("1/0", co_name="g", lineno=12)
    s.ing.program_exception(None, exc_type="RuntimeError", message=BACKWARD_TWICE,
                            frames=_frames(s.user, (AOT_FILE, 3473, "backward")),
                            compiled="AOTAutograd's runtime wrappers", stage="runtime")
    diags = s.explain()
    assert [(d["kind"], d["stage"]) for d in diags] == [("failure", "runtime"),
                                                        ("graph_break", "dynamo")]
    assert "The exception ended the program" in diags[0]["explanation"]


def test_an_unsupported_that_reached_the_program_stays_a_failure_though_it_was_caught(tmp_path):
    """fullgraph=True: a backend's exception is torch's Unsupported GB0219, raised to the
    program (which caught it: the run ended well); torch's WON'T CONVERT line for the frame is
    no break torch recovered from. The failure ranks first, with its GB code, at the line
    torch's message names (not the def line). Before: folded into a code-less graph_break at
    the def line."""
    s = Store(tmp_path, exit_code=0)
    tb = (f'Traceback (most recent call last):\n  File "{TORCH_FILE}", line 3119, in '
          "_call_user_compiler\n    compiled_fn = compiler_fn(gm, example_inputs)\n")
    s.compile("0/0", fail_type="Unsupported", exception_stack_trace=tb, fail_reason=(
        "Backend compiler exception\n  Explanation: Backend compiler `bad_backend` failed with "
        "test. Adding a graph break.\n  Hint: Report an issue to the backend compiler repo.\n\n"
        "  Developer debug context: Backend: bad_backend\n    Exception:test\n    Traceback:\n"
        f"  {_user_call(s, 9)}\n\n For more details about this graph break, please visit: "
        f"{URL.format('gb0219')}"))
    s.ing.record({"frame_id": 0, "frame_compile_id": 0, "artifact": {
        "name": "dynamo_graph_break_reason", "encoding": "string"}},
        f"WON'T CONVERT f {s.user} line 3\n========== TorchDynamo Stack Trace ==========\n{tb}")
    top = s.explain()[0]
    assert (top["kind"], top["gb_code"], top["user_frame"]["lineno"]) == ("failure", "GB0219", 9)
    assert top["reason"].startswith("Unsupported: Backend compiler exception")


def test_a_failure_raised_while_handling_another_break_has_its_own_gb_code(tmp_path):
    """torch's traceback chains the exception it was handling (step_unsupported's GB4636)
    before the failure's own ("cannot resume", GB0284): the code is the failure's. Before: the
    first URL in the traceback, GB4636 (seen after torch._dynamo.reset(), test_step_graph_break,
    where the break at 0/0 had that code)."""
    s = Store(tmp_path, exit_code=0)
    inner = ("torch._dynamo.exc.StepUnsupported: Call to `torch._dynamo.step_unsupported()`\n"
             f"\n For more details about this graph break, please visit: {URL.format('gb4636')}")
    own = ("cannot resume from torch._dynamo.step_unsupported()\n  Explanation: traced "
           "torch._dynamo.step_unsupported(), but Dynamo is instructed to error on graph break."
           f"\n\n For more details about this graph break, please visit: {URL.format('gb0284')}")
    tb = (f'Traceback (most recent call last):\n  File "{TORCH_FILE}", line 1603, in step\n'
          f"    self.dispatch_table[inst.opcode](self, inst)\n{inner}\n\nDuring handling of the "
          "above exception, another exception occurred:\n\nTraceback (most recent call last):\n"
          f'  File "{TORCH_FILE}", line 1610, in step\n    unimplemented(...)\n'
          f"torch._dynamo.exc.Unsupported: {own}\n")
    s.compile("0/0", fail_type="Unsupported", exception_stack_trace=tb, fail_reason=own)
    # A break torch hit while handling the failure's own comes after it in torch's message:
    # the failure's code is still the first there (test_cond_with_generator_gb_skip).
    nested = (f"Got graph break/error:\n\nCall to `torch._dynamo.graph_break()`\n\n "
              f"{URL.format('gb0025')}\n\n*** While handling this graph break, another graph "
              f"break occurred: ***\n\nGraph break under GenericContextWrappingVariable\n"
              f"\n {URL.format('gb0066')}")
    s.compile("1/0", fail_type="UncapturedHigherOrderOpError", fail_reason=nested,
              exception_stack_trace=f"Traceback (most recent call last):\n{nested}\n{nested}")
    codes = {d["compile_id"]: d["gb_code"] for d in s.explain() if d["kind"] == "failure"}
    assert codes == {"0/0": "GB0284", "1/0": "GB0025"}


def test_a_guard_that_failed_on_several_calls_keeps_torch_words_for_the_latest(tmp_path):
    """The reason's change spans the recompiles (8, 9, 10, 11, 12: every value, not the first
    and last as one change, since probes28a bert_static_varlen); torch's own statement of the latest
    failure ("expected 11, actual 12", what test_multiple_guard_fails looks for) stays in it
    and in torch_message. Before: only compdiag's rewording, and the first guard's text."""
    s = Store(tmp_path)
    s.compile("0/0")
    for i in range(1, 5):
        s.compile(f"0/{i}", recompile_reason=f"0/{i - 1}: tensor 'x' size mismatch at index 0. "
                                             f"expected {7 + i}, actual {8 + i}")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["reason"].startswith("size x.shape[0] changed (8, 9, 10, 11, 12)")
    assert "tensor 'x' size mismatch at index 0. expected 11, actual 12" in d["reason"]
    assert "expected 11, actual 12" in d["details"]["torch_message"]


def test_a_consequence_is_folded_under_its_cause_which_ranks_where_it_would_have(tmp_path):
    """Issue 29 §2, one mechanism: the Unsupported torch raised when it skipped the frame is
    the graph break's consequence (graph_breaks' KindSpec.causes). It is folded under the
    break with torch's message for it, and the break ranks at least where the failure would
    have ranked: above a break of another compile that did not skip its frame (it was above
    an accuracy mismatch too, until a measured miscompile ranked above every problem that
    costs only speed). On main the failure was dropped (FOLDS) and the break kept its own
    graph-break score."""
    s = Store(tmp_path)
    s.compile("0/0", fail_type="Unsupported",
              fail_reason="Call to `torch._dynamo.graph_break()`\n  Explanation: User-inserted "
                          f"graph break.\n\n For more details: {URL.format('gb0025')}")
    s.graph_break("0/0", 7, gb_type="Call to `torch._dynamo.graph_break()`", code="GB0025",
                  skipped=True)
    s.compile("1/0", co_name="g", lineno=20)
    for _ in range(5):
        s.graph_break("1/0", 22)
    diags = s.explain()
    assert [(d["kind"], d["user_frame"]["lineno"]) for d in diags] == [("graph_break", 7),
                                                                        ("graph_break", 22)]
    (folded,) = diags[0]["consequences"]
    assert folded["kind"] == "failure" and "Dynamo skipped the frame" in folded["why"]
    assert "graph_break()" in (folded["torch_message"] or folded["reason"])


def test_the_consequence_property_holds_on_a_hand_built_store(tmp_path):
    """The property tests/test_corpus.py checks over every corpus run, on the store above."""
    from compdiag.store.reader import Reader
    from locate_check import consequence_problems

    s = Store(tmp_path)
    s.compile("0/0", fail_type="Unsupported", fail_reason="Call to `torch._dynamo.graph_break()`")
    s.graph_break("0/0", 7, gb_type="Call to `torch._dynamo.graph_break()`", code="GB0025",
                  skipped=True)
    s.compile("1/0", co_name="g", lineno=20)
    s.accuracy("1/0", [("out0", False, 1.0, 0.5, {})])
    s.done()
    with Reader(s.path) as r:
        assert consequence_problems(r, s.run_id) == []


def _dynamic_true_recompile(s: Store, before: int, config: str) -> None:
    s.compile("0/0", dynamo_config=config)
    s.compile("0/1", dynamo_config=config,
              recompile_reason=f"0/0: tensor 'x' size mismatch at index 0. expected {before}, "
                               "actual 2")


def test_a_size_dynamic_true_still_specialised_that_recompiles_is_a_problem(tmp_path):
    """Issue 29 §2: torch.compile(dynamic=True) still specialises sizes 0 and 1; the call with
    size 2 then recompiles. That is the problem the user asked dynamic shapes to avoid, with
    its fix, not automatic-dynamic information (on main: info, "nothing to do")."""
    s = Store(tmp_path)
    _dynamic_true_recompile(s, 1, '{"assume_static_by_default": false, '
                                  '"automatic_dynamic_shapes": true}')
    (d,) = s.explain()
    assert (d["kind"], d["severity"]) == ("recompile", "problem")
    assert "0/1 specialisation" in d["explanation"] and "mark_unbacked" in d["fix"]


def test_one_automatic_dynamic_recompile_stays_information(tmp_path):
    """Without dynamic=True the same recompile is what torch does on purpose."""
    s = Store(tmp_path)
    _dynamic_true_recompile(s, 1, '{"assume_static_by_default": true, '
                                  '"automatic_dynamic_shapes": true}')
    (d,) = s.explain()
    assert (d["kind"], d["severity"]) == ("recompile", "info")


def test_the_recompile_limit_failure_is_folded_under_the_guard_that_kept_failing(tmp_path):
    """Issue 29 §2: Dynamo's failure at the recompile limit is the consequence of the guard
    that kept failing: one recompile diagnosis, with torch's failure folded under it (a
    relation in recompiles' KindSpec). On main the failures kind skipped it unsaid."""
    s = Store(tmp_path)
    recompile_to_the_limit(s, 0)
    (d,) = s.explain()
    assert d["kind"] == "recompile" and d["details"]["limit_hit"]
    (c,) = d["consequences"]
    assert c["kind"] == "failure" and "recompile limit" in c["why"]
    assert "recompile limit exceeded" in (c["torch_message"] or c["reason"])



def test_a_lowering_failure_that_names_no_node_is_at_the_node_inductor_was_lowering(tmp_path):
    """set11's complex_foreach_div (pytorch#197376): an assertion in GraphLowering.
    call_function (`<built-in function getitem> is not an OpOverload`) before any
    LoweringException names the node; capture keeps the node Inductor was lowering
    (capture/lowering_node.py). Before, the failure was at the compiled function's call."""
    import json

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="InductorError",
              fail_reason="AssertionError: <built-in function getitem> is not an OpOverload")
    s.ing.event("lowering_node", "0/0", {"node": "getitem", "target": "getitem"},
                json.dumps([{"filename": str(s.user), "lineno": 13, "line": "line_13 = 13",
                             "name": "f"}]))
    s.failure("0/0", stage="inductor_lowering", exc_type="InductorError",
              message="AssertionError: <built-in function getitem> is not an OpOverload",
              traceback='  File "/x/torch/_inductor/graph.py", line 1373, in call_function\n')
    top = next(d for d in s.explain() if d["kind"] == "failure")
    assert top["user_frame"]["lineno"] == 13, top


def test_capture_keeps_the_node_whose_lowering_raised_once(tmp_path):
    """capture/lowering_node.py on a stand-in for GraphLowering: the innermost node that raised
    is kept once per graph, with its user frames, and the exception goes on unchanged."""
    import types

    import pytest

    from compdiag.capture import lowering_node

    events = []

    class Lowering:
        def run_node(self, n):
            raise AssertionError("getitem is not an OpOverload")

    cap = types.SimpleNamespace(paused_depth=0, guarded=lambda _w, fn, *a: fn(*a),
                                ing=types.SimpleNamespace(event=lambda *a, **k: events.append(
                                    (a, k))))
    lowering_node._wrap(cap, Lowering)
    node = types.SimpleNamespace(name="getitem", target="getitem", meta={
        "stack_trace": f'  File "{tmp_path}/train.py", line 13, in f\n    x.div_(1j)\n'})
    g = Lowering()
    for _ in range(2):
        with pytest.raises(AssertionError):
            g.run_node(node)
    assert len(events) == 1 and '"lineno": 13' in events[0][1]["payload"]


def test_a_break_torch_says_an_earlier_break_caused_folds_under_it(tmp_path):
    """The session-20 oracle sweep (test_autograd_function's has_graph_break): after the
    program's own break, torch raised a "Reconstruction failure" break in the same function,
    which ranked below it but stood as a problem of its own. It is the first break's
    consequence now, folded under it; a follow-on break of another function is not."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 5)
    s.graph_break("0/0", 7, gb_type="Reconstruction failure", code="GB0092")
    s.compile("1/0", co_name="g", lineno=20)
    s.graph_break("1/0", 22, gb_type="AutogradFunctionContextVariable escaped Dynamo-traced "
                  "region", code="GB0019")
    diags = s.explain()
    lines = [(d["kind"], d["user_frame"]["lineno"]) for d in diags]
    assert lines[0] == ("graph_break", 5) and ("graph_break", 7) not in lines, lines
    (folded,) = diags[0]["consequences"]
    assert folded["kind"] == "graph_break" and "earlier graph break" in folded["why"]
    assert ("graph_break", 22) in lines


def test_an_error_in_user_code_torch_ran_while_tracing_is_at_that_code(tmp_path):
    """Issue 29 §1 (set19 subclass_dispatch_branch, pytorch#115646): a tensor subclass's
    __torch_dispatch__ calls a helper with a data-dependent `if`; AOTAutograd runs it on fake
    tensors and the compile fails. torch's "from user code" names the traced matmul (line 49);
    the exception's own traceback holds the user frames torch called (39, then 16), and 16
    is where it was raised. On main: line 49, and no "data-dependent" in the headline."""
    s = Store(tmp_path)
    s.user.write_text("x = 1\n" * 60)
    torch_file = "/usr/lib/python3/site-packages/torch/_subclasses/fake_tensor.py"
    tb = (f'Traceback (most recent call last):\n  File "{s.user}", line 52, in <module>\n'
          f'    x = 1\n  File "{TORCH_FILE}", line 100, in _fn\n    return fn(*args)\n'
          f'  File "{s.user}", line 39, in __torch_dispatch__\n    x = 1\n'
          f'  File "{s.user}", line 16, in dequantize\n    x = 1\n'
          f'  File "{torch_file}", line 1754, in _cached_dispatch_impl\n    raise\n'
          "torch._subclasses.fake_tensor.DataDependentOutputException: "
          "aten._local_scalar_dense.default\n\nfrom user code:\n"
          f'   File "{s.user}", line 49, in layer\n     x = 1\n')
    s.compile("0/0", co_name="layer", lineno=47)
    s.failure("0/0", stage="aot", exc_type="DataDependentOutputException",
              message="aten._local_scalar_dense.default", traceback=tb,
              filename=str(s.user), lineno=49, line="x = 1")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 16, d["user_frame"]
    assert "raised at line 16 in dequantize(), code of yours torch ran while tracing line 49 " \
           "(through line 39)" in d["reason"], d["reason"]
    assert "data-dependent" in d["reason"]
    # the call chain alone (no user code below torch's frames) keeps torch's line
    s2 = Store(tmp_path / "b") if (tmp_path / "b").mkdir() is None else None
    s2.compile("0/0", co_name="layer", lineno=47)
    s2.failure("0/0", stage="aot", exc_type="RuntimeError", message="boom",
               traceback=tb.split(f'  File "{s.user}", line 39')[0] + "RuntimeError: boom\n",
               filename=str(s2.user), lineno=49, line="x = 1")
    (d2,) = [d for d in s2.explain() if d["kind"] == "failure"]
    assert d2["user_frame"]["lineno"] == 49 and "raised at line" not in d2["reason"]


def test_a_limit_the_program_lowered_names_its_line_at_the_call_that_hit_it(tmp_path):
    """benchmarks/probes25 reset_harness_limit_leak: a test harness set
    `torch._dynamo.config.recompile_limit = 1` in one test and never restored it
    (torch._dynamo.reset() keeps config); the next test's second length went to eager. The
    compile that hit the limit never started, so no call of its own was stored, and the
    diagnosis fell back to the def (line 8) with the generic fix. Now: the call into the frame
    before it (line 25), the program's line in the reason and the fix, "1 time"."""
    import json as _json

    s = Store(tmp_path)
    s.user.write_text("x = 1\n" * 13 + "torch._dynamo.config.recompile_limit = 1  # once\n"
                      + "x = 1\n" * 30)
    s.compile("0/0", co_name="pool_norm", lineno=8)
    s.ing.event("call_stack", "0/0", {}, _json.dumps({"frames": [
        {"filename": str(s.user), "lineno": 25, "line": None, "name": "test"}], "objects": {}}))
    s.compile("0/1", co_name="pool_norm", lineno=8,
              recompile_reason="0/0: tensor 'x' size mismatch at index 1. expected 10, actual 17")
    s.failure("0/1", stage="dynamo", exc_type="Unsupported",
              message="Dynamo recompile limit exceeded",
              traceback="Dynamo recompile limit exceeded\n  Explanation: too many.\n")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 25, d["user_frame"]
    assert "recompiled 1 time on x.shape[1]" in d["reason"], d["reason"]
    assert d["reason"].endswith("; the limit is 1, set by the program at line 14 "
                                "(`torch._dynamo.config.recompile_limit = 1`)")
    assert d["fix"].startswith("Line 14 (`torch._dynamo.config.recompile_limit = 1`) lowered")


def test_a_break_whose_resumed_code_hit_the_limit_says_so_in_its_headline(tmp_path):
    """Issue 29 §2 (set19b timm_mixup_in_step): the resumed code after a break recompiled on
    the value passed across it until the limit; the limit is folded under the break, which
    ranks where the limit would, and its headline now says what it costs most (the resumed
    code runs in eager), named as the user's function, not Dynamo's resume function."""
    s = Store(tmp_path)
    break_then_resumed_limit(s)
    (d,) = s.explain()
    assert d["kind"] == "graph_break"
    assert d["reason"].endswith("; the code after it then recompiled until the recompile "
                                "limit (forward() now runs in eager)"), d["reason"]


def test_two_call_sites_with_two_keyword_sets_are_one_recompile_on_purpose(tmp_path):
    """benchmarks/probes25 hf_llama_decode_dynamic_false: a prefill call (line 16) and a decode
    step (line 21) pass the compiled forward different keyword sets; `len(kwargs) == 2` fails
    once, by design of the loop, and it was a problem with "fill every key before the first
    call". Once, from another call site: information. From the same line it stays a problem."""
    import json as _json

    for lines, want in (((16, 21), "info"), ((21, 21), "problem")):
        (tmp_path / str(lines[0])).mkdir()
        s = Store(tmp_path / str(lines[0]))
        for k, line in enumerate(lines):
            s.compile(f"0/{k}", co_name="forward", lineno=5, **({} if k == 0 else {
                "recompile_reason": "0/0: len(kwargs) == 2"}))
            s.ing.event("call_stack", f"0/{k}", {}, _json.dumps({"frames": [
                {"filename": str(s.user), "lineno": line, "line": None, "name": "main"}],
                "objects": {}}))
        (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
        assert d["severity"] == want, (lines, d)
        assert ("Nothing to do" in d["fix"]) is (want == "info")


def test_a_cache_bypass_of_a_compile_that_failed_folds_under_the_failure(tmp_path):
    """probes44j saliency_grad_probe_bw_mutation: the only compile failed in AOTAutograd's
    partitioner, and "aotautograd cache bypassed" ranked as a second problem; the failed
    compile had nothing to cache. A bypass of a compile that succeeded stays its own."""
    from test_explain import _bypass

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="AssertionError",
              fail_reason="Node view_10 was invalid, but is output")
    s.compile("1/0", co_name="g", lineno=12)
    _bypass(s, "0/0", "Unsupported call_function target mylib.scale. \n Function module: "
                      "mylib, \nFunction name: scale")
    diags = s.explain()
    top = diags[0]
    assert top["kind"] == "failure"
    assert [c["kind"] for c in top["consequences"]] == ["cache"]
    from compdiag.analyses.runtime_fixes import runtime_fix
    assert "allocate it outside the compiled function" in runtime_fix(
        "AssertionError: Node view_10 was invalid, but is output", "aot")
    assert [d["kind"] for d in diags].count("cache") == 0

    (tmp_path / "ok").mkdir()
    s2 = Store(tmp_path / "ok", exit_code=1)
    s2.compile("0/0", fail_type="AssertionError",
               fail_reason="Node view_10 was invalid, but is output")
    s2.compile("1/0", co_name="g", lineno=12)
    _bypass(s2, "1/0", "Unsupported call_function target mylib.scale. \n Function module: "
                       "mylib, \nFunction name: scale")
    assert any(d["kind"] == "cache" for d in s2.explain())

    # an accuracy check's failure is no failed compile (probes46d: "the compile failed, so it
    # had nothing to cache" folded the cache line of every accuracy mismatch)
    (tmp_path / "acc").mkdir()
    s3 = Store(tmp_path / "acc", exit_code=0)
    s3.compile("0/0")
    s3.failure("0/0", stage="accuracy", exc_type="AccuracyMismatch", message="output 0 differs",
               filename=str(s3.user), lineno=3)
    _bypass(s3, "0/0", "Unsupported call_function target mylib.scale. \n Function module: "
                       "mylib, \nFunction name: scale")
    assert all(c["kind"] != "cache" for d in s3.explain() for c in d.get("consequences", []))
