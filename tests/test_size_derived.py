"""A number computed from a size that a line needs as a concrete value (an op's size
argument) is said as that, with a fix that keeps the size to a few values, never "wrap it in a
tensor" (guard_words._size_derived). probes33a switch_capacity_varlen: `capacity =
math.ceil(1.25 * n_tokens / 4)` used as `F.one_hot(..., capacity)`; before this test the
fix to wrap it in a tensor added a graph break and kept the recompiles."""

from __future__ import annotations

from test_explain import Store

GUARD = ("math.ceil(((1.25*torch.sym_float(x.size()[0])) / 4.0)) == {v}  # line_30 = 30  "
         "# {f}:30 in forward (_dynamo/variables/tensor.py:2606 in evaluate_expr)")


def test_a_size_derived_number_is_not_wrapped_in_a_tensor(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", co_name="forward", lineno=22)
    for i, v in enumerate((38, 28, 42, 33), 1):
        s.compile(f"0/{i}", co_name="forward", lineno=22,
                  recompile_reason=f"0/{i - 1}: " + GUARD.format(v=v, f=s.user))
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["reason"].startswith("a number computed from x.shape[0] is needed as a concrete "
                                  "value at line 30"), d["reason"]
    assert d["user_frame"]["lineno"] == 30, d["user_frame"]
    assert "torch.tensor(" not in d["fix"] and "bucket" in d["fix"], d["fix"]
