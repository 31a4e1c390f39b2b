"""A graph break Dynamo made of a backend's exception (GB0219, "Backend compiler exception"),
probes32a ddpm_schedule_index: `betas[t]` with a 0-d tensor `t` made Inductor fail on
aten._local_scalar_dense. On the code before this test the break was at the call
(`x = p_sample(x, t)`, line 36: the end of torch's "User code traceback"), said as "Backend
compiler exception (Backend: inductor)", and torch's "WON'T CONVERT p_sample ..." note was a
second problem. torch names the node's own line under "Original traceback:" (28), the op it
failed on and the node it ran. Fast: trace-shaped records through the Ingestor."""

from __future__ import annotations

from compdiag.ingest.parse_dynamo import parse_graph_break
from test_explain import Store, _ids


def _backend_break(user: str) -> str:
    return (f"Graph break in user code at {user}:25\n"
            "Graph Break Reason: Encountered graph break that we cannot resume from. Compiling "
            "up to the previous resumable state, then skipping the rest of the function. Graph "
            "break encountered:\n\nBackend compiler exception\n"
            "  Explanation: Backend compiler `inductor` failed with "
            "aten._local_scalar_dense.default\n\n"
            "    While executing %getitem : [num_users=1] = call_function[target=operator."
            "getitem](args = (%g_betas_, %l_t_), kwargs = {})\n"
            "    Original traceback:\n"
            f'      File "{user}", line 28, in p_sample\n'
            "        line_28 = 28\n\n"
            "    Use tlparse to see full graph. Adding a graph break.\n"
            "  Hint: Report an issue to the backend compiler repo.\n\n"
            "  Developer debug context: Backend: inductor\n\n"
            " For more details about this graph break, please visit: "
            "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0219.html\n\n"
            f'User code traceback:\n  File "{user}", line 36, in <module>\n    line_36 = 36\n')


def test_the_nodes_original_traceback_is_the_breaks_line():
    gb = parse_graph_break(_backend_break("/home/me/ddpm.py"))
    assert (gb["filename"], gb["lineno"], gb["line"]) == ("/home/me/ddpm.py", 28, "line_28 = 28")
    # a library frame under "Original traceback:" is not the user's line
    lib = _backend_break("/home/me/ddpm.py").replace(
        '      File "/home/me/ddpm.py", line 28',
        '      File "/usr/lib/python3.11/site-packages/torch/nn/functional.py", line 28')
    assert parse_graph_break(lib)["lineno"] == 36


def test_a_backend_exception_break_names_the_op_the_node_and_folds_wont_convert(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", co_name="p_sample", lineno=25)
    art = {**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}}
    s.ing.record(art, _backend_break(str(s.user)))
    s.ing.record(art, f"WON'T CONVERT p_sample {s.user} line 25\n"
                      "========== TorchDynamo Stack Trace ==========\n"
                      "Traceback (most recent call last):\n"
                      '  File "/x/torch/_dynamo/output_graph.py", line 3119, in _call_user_compiler\n'
                      "    compiled_fn = compiler_fn(gm, example_inputs)\n")
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["user_frame"]["lineno"] == 28, d["user_frame"]
    assert "inductor failed on aten._local_scalar_dense.default" in d["reason"], d["reason"]
    assert "an index `x[i]` (operator.getitem)" in d["reason"]
    assert "a tensor's value read as a Python number" in d["reason"]
