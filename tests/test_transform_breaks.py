"""A function a torch.func transform called from eager, which Dynamo refuses ("Unsupported
functorch tracing attempt"), is the consequence of the break inside that function that sent
the transform to eager (analyses/func_transforms.transform_sent_to_eager). probes33b
robust_regression_grad_step: `if loss > cap:` inside `grad(batch_loss)` of a compiled step;
before this test the refusal at the `grad(...)` line was #1 with a fix to compile the
transform, which the program already did, and the data-dependent `if` was #2."""

from __future__ import annotations

from test_explain import Store

FUNCTORCH = "Unsupported functorch tracing attempt"


def _store(tmp_path) -> Store:
    """batch_loss() at lines 11-15 of the user's file."""
    s = Store(tmp_path)
    s.user.write_text("".join(f"line_{i} = {i}\n" for i in range(1, 11))
                      + "def batch_loss(w):\n    loss = w.sum()\n    if loss > 4:\n"
                      "        loss = loss.sqrt()\n    return loss\n"
                      + "".join(f"line_{i} = {i}\n" for i in range(16, 40)))
    return s


def test_the_break_inside_the_transformed_function_ranks_first(tmp_path):
    s = _store(tmp_path)
    s.compile("0/0", co_name="sgd_step", lineno=18)
    s.graph_break("0/0", 13, gb_type="Data-dependent branching", code="GB0170")
    s.compile("2/0", co_name="batch_loss", lineno=11)
    s.graph_break("2/0", 20, gb_type=FUNCTORCH, code="GB0149", skipped=True)
    problems = [d for d in s.explain() if d["severity"] == "problem"]
    assert [d["user_frame"]["lineno"] for d in problems] == [13], problems
    assert problems[0]["details"]["gb_type"] == "Data-dependent branching"


def test_a_break_outside_the_function_is_no_cause(tmp_path):
    s = _store(tmp_path)
    s.compile("0/0", co_name="sgd_step", lineno=18)
    s.graph_break("0/0", 25, gb_type="Data-dependent branching", code="GB0170")
    s.compile("2/0", co_name="batch_loss", lineno=11)
    s.graph_break("2/0", 20, gb_type=FUNCTORCH, code="GB0149", skipped=True)
    problems = [d for d in s.explain() if d["severity"] == "problem"]
    assert len(problems) == 2, problems
