"""A Python loop Dynamo unrolled into a large graph is a perf problem at the loop
(analyses/unrolled_loops.py), read from Dynamo's own graph: one op of one line traced many
times over, inside a loop of the compiled function. probes33d soft_dtw_unrolled: an 8x8
soft-DTW recurrence, 46 s of compile in a 64 s run; before this test explain said "no problems
found"."""

from __future__ import annotations

from test_explain import Store, _ids

SOURCE = ("import torch\n" * 9 + "def soft_dtw(x, n, m):\n    R = {}\n"
          "    for i in range(n):\n        for j in range(m):\n"
          "            R[i, j] = torch.logsumexp(-x[i, j] / 0.1, dim=0)\n"
          "    return R\n" + "y = 1\n" * 20)


def _graph(user: str, n: int, m: int, line: int = 14) -> str:
    body = []
    for k in range(n * m):
        s = "" if k == 0 else f"_{k}"
        body.append(f"         # File: {user}:{line} in soft_dtw, code: R[i, j] = ...\n"
                    f"        getitem{s} = l_x_[({k // m}, {k % m})]\n"
                    f"        neg{s} = -getitem{s}\n        truediv{s} = neg{s} / 0.1\n"
                    f"        logsumexp{s} = torch.logsumexp(truediv{s}, dim = 0)\n")
    return ("class GraphModule(torch.nn.Module):\n    def forward(self, L_x_):\n"
            "        l_x_ = L_x_\n\n" + "\n".join(body) + "        return (logsumexp,)\n")


def _explain(tmp_path, n: int, m: int, line: int = 14) -> list[dict]:
    s = Store(tmp_path)
    s.user.write_text(SOURCE)
    s.compile("0/0", co_name="soft_dtw", lineno=10)
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, _graph(str(s.user), n, m, line))
    return [d for d in s.explain() if d["severity"] == "problem"]


def test_a_nested_loop_unrolled_into_the_graph_is_a_perf_problem_at_the_loop(tmp_path):
    (d,) = _explain(tmp_path, 8, 8)
    assert d["kind"] == "perf" and d["user_frame"]["lineno"] == 13, d
    assert "unrolled" in d["reason"] and "traced 64 times" in d["reason"], d["reason"]


def test_a_short_loop_is_no_problem(tmp_path):
    assert _explain(tmp_path, 3, 4) == []  # 12 iterations: what a small loop costs


def test_a_line_outside_any_loop_is_no_unrolled_loop(tmp_path):
    assert _explain(tmp_path, 8, 8, line=11) == []  # `R = {}`, before the loops
