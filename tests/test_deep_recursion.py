"""A compile that ran out of Python stack inlining a recursive call is said at that call
(analyses/deep_recursion.py). probes38i treelstm_deep_chain, blind: a Tree-LSTM's `self(kid)`
(line 25) over a 160-token chain; explain said "InternalTorchDynamoError (Dynamo's own
error): RecursionError ... at line 23", the innermost line, with "report it to PyTorch"."""

from __future__ import annotations

from pathlib import Path

from test_explain import Store


def test_the_recursive_call_torchs_stack_repeats_is_the_line(tmp_path: Path) -> None:
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    user = str(s.user)
    frames = "".join(f'  File "{user}", line 25, in forward\n    line_25 = 25\n'
                     for _ in range(6))
    tb = ("Traceback (most recent call last):\n"
          '  File "/v/torch/_dynamo/symbolic_convert.py", line 900, in run\n    x\n'
          + frames + f'  File "{user}", line 23, in forward\n    line_23 = 23\n'
          "RecursionError: maximum recursion depth exceeded\n")
    s.failure("0/0", stage="dynamo", exc_type="RecursionError",
              message="maximum recursion depth exceeded", traceback=tb,
              filename=user, lineno=23, line="line_23 = 23")
    top = [d for d in s.explain() if d["kind"] == "failure"][0]
    assert top["user_frame"]["lineno"] == 25, top
    assert top["reason"].startswith("RecursionError while Dynamo inlined the recursive call at "
                                    "line 25"), top["reason"]
    assert "Report it to PyTorch" not in top["fix"] and "per-node" in top["fix"], top["fix"]


def test_a_data_dependent_check_that_only_raises_is_checked_after_the_call(tmp_path: Path
                                                                           ) -> None:
    """probes38j ntxent_nonfinite_raise_fullgraph: `if not torch.isfinite(loss): raise
    FloatingPointError(...)` under fullgraph=True; the fix offered torch.where/torch.cond,
    with nothing to select. (analyses/raising_branch.py)"""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n\n\ndef f(loss):\n    if not torch.isfinite(loss):\n"
                      "        raise FloatingPointError('bad')\n    return loss\n")
    s.compile("0/0", co_name="f", lineno=4)
    s.failure("0/0", stage="dynamo", exc_type="Unsupported",
              message="Data-dependent branching", traceback="",
              filename=str(s.user), lineno=5, line="if not torch.isfinite(loss):")
    top = [d for d in s.explain() if d["kind"] == "failure"][0]
    assert "on `not torch.isfinite(loss)`, a check that only raises" in top["reason"], top
    assert "after the compiled call" in top["fix"], top["fix"]
