"""A data-dependent guard that fails on the line that made the symbol says what the symbol is
(analyses/unbacked_origin.py's SAME_LINE_*). probes33a expert_choice_fullgraph:
`(~covered).nonzero().squeeze(-1).tolist()` under fullgraph=True failed on "Eq(u0, 0)";
before this test the reason was torch's words alone and the fix said to check that the line
runs in eager, which it does."""

from __future__ import annotations

from test_explain import Store, _ids

MESSAGE = ("Could not guard on data-dependent expression Eq(u0, 0) (unhinted: Eq(u0, 0)).  "
           "(Size-like symbols: u0)")


def _made_at_26(s: Store, op: str) -> None:
    """torch's record of u0, made by OP at line 26."""
    s.ing.record({**_ids("0/0"), "str": [str(s.user), 1]}, None)
    s.ing.record({**_ids("0/0"), "create_unbacked_symbol": {
        "symbol": "u0", "vr": "[0, int_oo]",
        "user_stack": [{"line": 26, "name": "forward", "filename": 1, "loc": "line_26 = 26"}],
        "stack": [{"line": 1, "name": "dispatch_to_op_implementations_dict", "filename": 2},
                  {"line": 2, "name": op, "filename": 2}]}}, None)


def _run(tmp_path, op: str) -> dict:
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    _made_at_26(s, op)
    s.failure("0/0", stage="dynamo", exc_type="GuardOnDataDependentSymNode", message=MESSAGE,
              filename=str(s.user), lineno=26, line="line_26 = 26", torch_message=MESSAGE,
              traceback=f'  File "{s.user}", line 26, in forward\n    line_26 = 26\n')
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    return d


def test_a_size_made_and_needed_on_one_line_is_said_as_that(tmp_path):
    d = _run(tmp_path, "nonzero")
    assert d["user_frame"]["lineno"] == 26, d["user_frame"]
    assert "u0 is the output size of `nonzero` on this line" in d["reason"], d["reason"]
    assert "fullgraph=True" in d["fix"] and "register_fake" not in d["fix"], d["fix"]


def test_a_value_read_on_the_line_is_a_value(tmp_path):
    d = _run(tmp_path, "local_scalar_dense")
    assert "u0 is a value read out of a tensor on this line" in d["reason"], d["reason"]


def test_a_break_on_a_data_dependent_size_names_the_op_that_made_it(tmp_path):
    """probes33a moe_skip_idle_experts: `if idx.numel() == 0:` (line 27) after `idx =
    hit.nonzero()` (line 26) broke with torch's "Consider annotating your code using
    torch._check*()" and a fix to move the statement out."""
    s = Store(tmp_path)
    s.compile("0/0")
    _made_at_26(s, "nonzero")
    s.graph_break("0/0", 27, gb_type="Consider annotating your code using torch._check*(). "
                  + MESSAGE, code="")
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert "u0 is the output size of `nonzero` at line 26" in d["reason"], d["reason"]
    assert d["fix"].startswith("Decide without u0"), d["fix"]


def test_a_size_from_a_boolean_mask_decided_on_a_later_line_is_said_as_a_size(tmp_path):
    """probes37b vad_voiced_count_fullgraph: `voiced = frames[energy > THR]` (line 26), then
    `if voiced.shape[0] < 4:` (line 27) under fullgraph=True failed on "u0 < 4", and the fix
    said to check the line in eager and `register_fake`: the mask's row count (aten's
    `index_tensor`, no read op compdiag knew) was never traced to its line. It is the output
    size of the selection, with a fix that keeps the shape fixed, and a `torch._check` on the
    tensor's first dimension, not on the tensor."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    _made_at_26(s, "index_tensor")
    message = MESSAGE.replace("Eq(u0, 0) (unhinted: Eq(u0, 0))", "u0 < 4 (unhinted: u0 < 4)")
    s.failure("0/0", stage="dynamo", exc_type="UserError", message=message,
              filename=str(s.user), lineno=27, line="line_27 = 27", torch_message=message,
              traceback=f'  File "{s.user}", line 27, in forward\n    line_27 = 27\n')
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 27, d["user_frame"]
    assert "the output size of `x[mask]` with a boolean mask" in d["reason"], d["reason"]
    assert "torch.where" in d["fix"] and "register_fake" not in d["fix"], d["fix"]
    assert "torch._check(line_26.shape[0] >= 4)" in d["fix"], d["fix"]


def test_a_branch_in_library_code_the_program_compiled_gets_the_library_fix(tmp_path):
    """probes37a ema_averaged_model_fullgraph: `torch.compile(ema.update_parameters,
    fullgraph=True)` failed on "Eq(u0, 1)" at swa_utils' `if copy_param:`; nothing in the
    traced stack was the user's, so the library line was never named and the fix said to
    check the line in eager, where it runs. The library's statement is named, and the fix is
    to let the graph break there (no fullgraph) or call it outside."""
    lib = "/site-packages/torch/optim/swa_utils.py"
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    tb = (f'  File "{s.user}", line 23, in <module>\n    line_23 = 23\n'
          "torch._dynamo.exc.UserError: Could not guard on data-dependent expression Eq(u0, 1)"
          f'\n\nfrom user code:\n   File "{lib}", line 315, in update_parameters\n'
          "    if copy_param:\n")
    s.failure("0/0", stage="dynamo", exc_type="UserError", message=MESSAGE.replace("0", "1"),
              filename=lib, lineno=315, line="if copy_param:", traceback=tb)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "at `if copy_param:` in update_parameters() (swa_utils.py:315)" in d["reason"], d
    assert "fullgraph=True` off" in d["fix"] and "register_fake" not in d["fix"], d["fix"]
