"""Issue 29 §1 for every backend: a backend that writes no post-grad graph (eager,
aot_eager) still leaves node evidence. Ingest keeps the nodes of the graph Dynamo handed the
backend, at the user lines torch noted (dynamo_nodes), and joins the generated line an eager
backend's failure names (torch.fx prints it: `File "<eval_with_key>.N", line L, in forward`
and the line) to its node. Fast: trace-shaped records through the Ingestor, no compile."""

from __future__ import annotations

from compdiag.store.reader import Reader
from compdiag.views.explain import explain_document
from locate_check import ended_node_problems
from test_explain import Store, _call, _ids


def _dynamo_graph(user: str) -> str:
    """dynamo_output_graph's payload for `picked = x[rows]` (line 5), `sum(...)` (line 6)."""
    return ("class GraphModule(torch.nn.Module):\n"
            '    def forward(self, L_x_: "f32[2, 10][10, 1]cpu", L_rows_: "i64[2, 3][3, 1]cpu"):\n'
            "        l_x_ = L_x_\n        l_rows_ = L_rows_\n\n"
            f"         # File: {user}:5 in f, code: line_5 = 5\n"
            '        picked: "f32[2, 3, 10][30, 10, 1]cpu" = l_x_[l_rows_];  '
            "l_x_ = l_rows_ = None\n\n"
            f"         # File: {user}:6 in f, code: line_6 = 6\n"
            '        sum_1: "f32[2, 10][10, 1]cpu" = torch.sum(picked, dim = 1);  '
            "picked = None\n        return (sum_1,)\n")


# what torch.fx's wrapped call prints for an exception in the generated forward
_STDERR = ('  File "<eval_with_key>.1", line 7, in forward\n'
           "    picked = l_x_[l_rows_];  l_x_ = l_rows_ = None\n"
           "             ~~~~^^^^^^^^^\n"
           "IndexError: index 3 is out of bounds for dimension 0 with size 2\n")


def _eager_failure(s: Store) -> None:
    """An eager-backend compile of f (def line 3) called at line 18, whose generated line 7
    (the indexing, user line 5) raised while it ran and ended the program."""
    s.compile("0/0")
    _call(s, "0/0", [18])
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, _dynamo_graph(str(s.user)))
    s.failure(None, stage="runtime", exc_type="IndexError",
              message="index 3 is out of bounds for dimension 0 with size 2",
              filename=str(s.user), lineno=3, line="line_3 = 3",
              traceback=(f'  File "{s.user}", line 18, in <module>\n    line_18 = 18\n'
                         f'  File "{s.user}", line 3, in f\n    line_3 = 3\n'
                         "IndexError: index 3 is out of bounds for dimension 0 with size 2\n"))
    s.ing.program_end(how="exit", exit_code=1, stderr_tail=_STDERR)


def test_dynamo_graph_nodes_are_stored_at_their_user_lines(tmp_path):
    """Every node of the Dynamo graph, whatever the backend does next. On main no table held
    them: an eager or aot_eager compile had no node with a line at all."""
    s = Store(tmp_path, exit_code=1)
    _eager_failure(s)
    s.done()
    with Reader(s.path) as r:
        nodes = {n["node"]: n["lineno"] for n in r.dynamo_nodes(s.run_id, "0/0")}
    assert nodes == {"l_x_": None, "l_rows_": None, "picked": 5, "sum_1": 6}


def test_an_eager_backend_failure_points_at_the_node_that_raised(tmp_path):
    """set4 pow_inplace_broadcast's class, on a graph of two ops: the failure is at the
    indexing (line 5), evidence fx_node, not the call (18) nor the def (3) where main put it."""
    s = Store(tmp_path, exit_code=1)
    _eager_failure(s)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (5, "fx_node")


def test_a_generated_line_no_graph_holds_names_nothing(tmp_path):
    """A generated line whose code no stored graph has (another module's): no node, so the
    failure keeps what it had (here no compile to call), never a guessed node."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    _call(s, "0/0", [18])
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, _dynamo_graph(str(s.user)))
    s.failure(None, stage="runtime", exc_type="IndexError", message="boom",
              filename=str(s.user), lineno=3, line="line_3 = 3",
              traceback=f'  File "{s.user}", line 18, in <module>\n    line_18 = 18\n')
    s.ing.program_end(how="exit", exit_code=1,
                      stderr_tail=_STDERR.replace("l_x_[l_rows_]", "l_y_[l_rows_]"))
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] != 5 and d["user_frame"].get("evidence") != "fx_node"


def test_property_rejects_an_ended_node_diagnosed_at_the_call(tmp_path):
    """locate_check.ended_node_problems holds on the store above and rejects the document
    main made of it (the failure at the call, line 18)."""
    s = Store(tmp_path, exit_code=1)
    _eager_failure(s)
    s.done()
    with Reader(s.path) as r:
        doc = explain_document(r, s.run_id)["diagnoses"]
        assert ended_node_problems(r, s.run_id, doc) == []
        at_call = [{**d, "user_frame": {**d["user_frame"], "lineno": 18, "evidence": "call"}}
                   if d["kind"] == "failure" else d for d in doc]
        (problem,) = ended_node_problems(r, s.run_id, at_call)
        assert "user_script.py:5" in problem


def test_a_saved_tensor_changed_in_place_is_at_the_in_place_op_not_the_backward(tmp_path):
    """set11's inplace_normalize_backward (pytorch#185497): the compiled function normalises
    its input in place (`x.sub_(mean).div_(std)`, line 14) after saving a view of it for the
    backward; the program's loss.backward() (line 24) then fails autograd's version-counter
    check. Before, the failure was at line 24, where it surfaced; the cause is the in-place op
    on the graph's input."""
    user = str(tmp_path / "user_script.py")
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    graph = ("class GraphModule(torch.nn.Module):\n"
             '    def forward(self, L_x_: "f32[3, 8][8, 1]cpu", L_m_: "f32[3, 1][1, 1]cpu"):\n'
             "        l_x_ = L_x_\n        l_m_ = L_m_\n\n"
             f"         # File: {user}:12 in f, code: line_12 = 12\n"
             '        y: "f32[3, 4][8, 1]cpu" = l_x_[:, :4]\n\n'
             f"         # File: {user}:14 in f, code: line_14 = 14\n"
             '        sub_: "f32[3, 8][8, 1]cpu" = l_x_.sub_(l_m_);  l_x_ = l_m_ = None\n'
             "        return (y, sub_)\n")
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, graph)
    s.failure(None, stage="runtime", exc_type="RuntimeError",
              message="one of the variables needed for gradient computation has been modified "
                      "by an inplace operation: [torch.FloatTensor [3, 8]] is at version 1; "
                      "expected version 0 instead.",
              filename=user, lineno=24, line="line_24 = 24",
              traceback=f'  File "{user}", line 24, in <module>\n    line_24 = 24\n')
    top = next(d for d in s.explain() if d["kind"] == "failure")
    assert top["user_frame"]["lineno"] == 14, top
