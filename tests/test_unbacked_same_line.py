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
