"""torch.export's failures read as export's, not as a compiled call's (probes44c): a violated
`dynamic_shapes` declaration (a UserError, not mark_dynamic's ConstraintViolationError) at the
line that specialised the size, and a Python branch on a tensor's value that an export or a
fullgraph compile cannot break at, with the ways to write it as tensor ops."""

from __future__ import annotations

from types import SimpleNamespace

from compdiag.analyses.entered_after_break import no_frame_compiled
from compdiag.analyses.failure_fixes import failure_fix
from compdiag.formats.compiled_code import in_a_compile
from compdiag.ingest.parse_failures import failure_facts


def test_exports_constraint_violation_names_its_sources() -> None:
    facts = failure_facts("UserError", 'Constraints violated (batch)! For more information, '
                          'run with TORCH_LOGS="+dynamic".', None)
    assert facts["constraint_sources"] == ["batch"]
    assert failure_facts("UserError", "something else", None)["constraint_sources"] is None


def test_an_export_in_progress_is_a_trace_not_a_compiled_call() -> None:
    assert in_a_compile(["/x/site-packages/torch/export/_trace.py",
                         "/x/site-packages/torch/_dynamo/eval_frame.py"])


def test_a_branch_on_a_tensor_value_gets_the_tensor_ways() -> None:
    fix = failure_fix("dynamo", "GuardOnDataDependentSymNode", "Could not guard on "
                      "data-dependent expression Eq(u0, 1)", run_id=1, argv=["x.py"],
                      line="if peak > self.peak_limit:")
    assert "torch.where" in fix and "torch.cond" in fix and "fake tensors" not in fix
    other = failure_fix("dynamo", "GuardOnDataDependentSymNode", "Could not guard",
                        run_id=1, argv=["x.py"], line="y = x[: n.item()]")
    assert "torch.where" not in other


def _diag(line: int, reason: str = "", skipped: bool = False) -> SimpleNamespace:
    return SimpleNamespace(reason=reason, torch_message=None,
                           user_frame=SimpleNamespace(filename="m.py", lineno=line),
                           details=SimpleNamespace(frame_skipped=skipped))


def test_fullgraphs_no_frames_failure_is_the_skips_consequence() -> None:
    """probes44a flops_counter_fullgraph_model: "found no compiled frames" ranked above the
    dispatch-mode skip that says why."""
    failure = _diag(28, "RuntimeError: torch.compile with fullgraph=True found no compiled "
                        "frames. Skipped frames:")
    assert no_frame_compiled(failure, _diag(28, skipped=True), None)
    assert not no_frame_compiled(failure, _diag(20, skipped=True), None)
    assert not no_frame_compiled(_diag(28, "RuntimeError: boom"), _diag(28, skipped=True), None)


def test_a_symbol_torch_kept_no_line_for_is_read_at_the_graphs_item() -> None:
    """probes44c seasonal_period_unfold_unbacked: u0 from `period.item()` under
    capture_scalar_outputs failed in AOTAutograd with no user frame for the symbol; the fix
    was only bisect/minify."""
    from compdiag.analyses.unbacked_origin import unbacked_origin

    nodes = [{"call": "L_period_", "filename": None, "lineno": None},
             {"call": "l_period_.item();  l_period_ = None", "filename": "/u/s.py",
              "lineno": 47, "line": "k = period.item()"}]
    ctx = SimpleNamespace(run_id=1, resolve=lambda f: f, dynamo_nodes=lambda cid: nodes,
                          r=SimpleNamespace(unbacked_symbols=lambda run, cid: [
                              {"symbol": "u0", "op": "local_scalar_dense", "filename": None,
                               "lineno": None}]))
    read = unbacked_origin(ctx, "0/0", "Could not extract specialized integer from "
                                       "data-dependent expression u0 (unhinted: u0).")
    assert read["lineno"] == 47 and read["symbol"] == "u0" and "pass it in" in read["fix"]


def test_torchs_suggested_declaration_is_the_fix_of_a_range_violation() -> None:
    """probes44h export_pos_table_seq_max: `Dim("seq", max=1024)` over a 128-row table; the
    fix said to check for a missing register_fake."""
    message = ("Constraints violated (seq)! For more information, run with TORCH_LOGS=...\n"
               "  - Not all values of seq = L['ids'].size()[1] in the specified range seq <= "
               "1024 satisfy the generated guard L['ids'].size()[1] <= 128\n"
               "Suggested fixes:\n  seq = Dim('seq', max=128)\n\nThe error above occurred")
    fix = failure_fix("dynamo", "UserError", "Constraints violated (seq)!", run_id=1,
                      argv=["x.py"], torch_message=message)
    assert "`seq = Dim('seq', max=128)`" in fix and "register_fake" not in fix


def test_aots_inplace_check_on_a_backward_never_run_gets_the_out_of_place_fix() -> None:
    """probes44f eval_relu_cap_copy_inplace (pytorch#158561): AOTAutograd traces the backward
    of an evaluation without no_grad; only bisect/minify was offered."""
    fix = failure_fix("aot", "RuntimeError", "one of the variables needed for gradient "
                      "computation has been modified by an inplace operation", run_id=1,
                      argv=["x.py"])
    assert "out of place" in fix and "torch.no_grad()" in fix


def test_int_of_a_tensor_under_a_trace_that_cannot_break_reads_it_with_item() -> None:
    """probes44h export_topk_confident_count: `k = int((p > t).sum())` in a non-strict
    export; the fix said to check for a missing register_fake."""
    fix = failure_fix("dynamo", "GuardOnDataDependentSymNode", "Could not extract "
                      "specialized integer from data-dependent expression u0", run_id=1,
                      argv=["x.py"], line="k = int((probs > self.threshold).sum())")
    assert ".item()" in fix and "register_fake" not in fix


def test_a_miscompile_in_an_exported_graph_is_not_offered_a_disable_helper() -> None:
    """probes44h export_compile_reverse_upsample (pytorch#190765): the exported module's
    graph runs none of the program's Python, so `@torch.compiler.disable` did nothing."""
    from compdiag.analyses.miscompile_fix import workaround

    node = {"op": "flip", "user_frame": {"lineno": 26, "line": "t = torch.flip(h, [1])"}}
    assert "torch.compiler.disable`)" in workaround(node)
    exported = workaround(node, generated=True)
    assert "export again" in exported and "changes nothing" in exported
