"""A failure whose words name a construct is at the program's line that has it
(analyses/source_causes.py). probes35e varlen_mark_dynamic_min_only: `mark_dynamic(tokens, 1,
min=2)` without `max` made Dynamo raise "AssertionError: not simple sympy type <class
'NoneType'>: None" while wrapping the input; explain put it at the forward's first line with
a fake-tensor fix and a bisect that answered "eager"."""

from __future__ import annotations

from test_explain import Store


def test_a_one_bound_mark_dynamic_failure_is_at_the_mark(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 16 + "def forward(x):\n    return x * 2\n"
                      + "x = 1\n" * 10 + "torch._dynamo.mark_dynamic(x, 1, min=2)\n"
                      + "forward(x)\n")
    s.compile("0/0", co_name="forward", lineno=17)
    s.failure("0/0", stage="dynamo", exc_type="AssertionError",
              message="not simple sympy type <class 'NoneType'>: None",
              filename=str(s.user), lineno=18, line="return x * 2")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 29, d["user_frame"]
    assert "mark_dynamic(x, 1, min=2)" in d["reason"], d["reason"]
    assert "both bounds" in d["fix"], d["fix"]
