"""A higher-order op's function that returns other metadata than torch expects is said at
the statement that returns it (analyses/hop_outputs.py). probes37d while_loop_grow_tokens: a
decode loop's body grew the carried sequence with torch.cat; torch's "Expected
body_fn_output and carried_inputs to have same metadata ... pair[1] differ in 'shape'" was
said at the while_loop call, with the fix for a side effect in a branch."""

from __future__ import annotations

from test_explain import Store

SRC = ["import torch", "from torch._higher_order_ops import while_loop", "", "",
       "def generate(prompt):", "    def cond_fn(i, seq):", "        return i < 4", "",
       "    def body_fn(i, seq):", "        nxt = seq[-1:] + 1",
       "        return i + 1, torch.cat([seq, nxt])", "",
       "    return while_loop(cond_fn, body_fn, (torch.tensor(0), prompt))", "",
       "def pick(x):", "    return torch.cond(x.sum() > 0, lambda x: x[:2], lambda x: x, (x,))"]
MESSAGE = ("Expected {a}_output and {b} to have same metadata but found:\npair[{i}] differ in "
           "'shape: torch.Size([4]) vs torch.Size([3])', where lhs is FakeTensor(...)")


def _top(tmp_path, line: int, a: str, b: str, i: int) -> dict:
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("\n".join(SRC) + "\n")
    s.compile("0/0", co_name="generate", lineno=5)
    message = MESSAGE.format(a=a, b=b, i=i)
    s.failure("0/0", stage="dynamo", exc_type="UncapturedHigherOrderOpError", message=message,
              filename=str(s.user), lineno=line, line=SRC[line - 1].strip(),
              traceback=f'  File "{s.user}", line {line}, in generate\n\n{message}\n')
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    return d


def test_the_body_statement_that_grows_a_carried_value_is_the_line(tmp_path):
    d = _top(tmp_path, 13, "body_fn", "carried_inputs", 1)
    assert d["user_frame"]["lineno"] == 11, d["user_frame"]
    assert "body_fn() returns `torch.cat([seq, nxt])` (line 11) as value 1" in d["reason"], d
    assert "of shape [4] where it came in as [3]" in d["reason"]
    assert "index_copy" in d["fix"] and "print" not in d["fix"], d["fix"]



def test_a_nested_return_or_a_nested_value_is_not_guessed(tmp_path):
    """(review) torch's pair index counts flattened leaves, and a def inside the body has
    returns of its own: neither is taken for the body's element."""
    from compdiag.analyses.hop_outputs import _returned
    import ast

    body = ast.parse("def body_fn(i, s):\n    def h():\n        return 1\n"
                     "    return i + 1, (s, s)\n").body[0]
    assert _returned(body, 1) is None
    flat = ast.parse("def body_fn(i, s):\n    def h():\n        return 1\n"
                     "    return i + 1, s\n").body[0]
    assert ast.unparse(_returned(flat, 1)) == "s"
