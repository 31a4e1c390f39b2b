"""The user line of a compile failure whose exception names none (issue 29 §1): the graph
node torch's own frames were working on when it raised (capture/lowering_node.failing_node),
and a user frame torch names in a warning it logged just before (capture/torch_log_frames).
Found by set15's blind cases: a joint-graph pattern's check raising a bare IndexError
(pytorch#190418) and guard building raising one after logging "Failing guard allocated at"
(pytorch#183369), both placed at the compiled call before."""

from __future__ import annotations

import json
import logging

import pytest
import torch.fx

from compdiag.capture import lowering_node, torch_log_frames
from compdiag.ingest.own_records import LOWERING_NODE
from test_explain import Store

# A pass of torch's, as far as the walker can tell: its frames' file is under torch/.
TORCH_PASS = "/usr/lib/python3.11/site-packages/torch/_inductor/fx_passes/fake_pass.py"
PASS_SRC = '''
class Match:
    def __init__(self, nodes):
        self.nodes = nodes

class Entry:
    def __init__(self, handler):
        self.handler = handler

def softmax_pattern(match):
    pass

def check(match, inp):
    return [][0]

def apply(graph_nodes, operand):
    entry = Entry(softmax_pattern)
    for node in graph_nodes:
        m = Match([operand, node])
        check(m, operand)
'''


def _graph(user: str) -> tuple[torch.fx.Node, torch.fx.Node]:
    g = torch.fx.Graph()
    x = g.placeholder("x")
    mul = g.call_function(torch.mul, (x, x))
    mul.meta["stack_trace"] = f'  File "{user}", line 14, in f\n    score = best * best\n'
    sub = g.call_function(torch.sub, (mul, mul))
    sub.meta["stack_trace"] = f'  File "{user}", line 15, in f\n    return F.log_softmax(score)\n'
    return mul, sub


def test_the_node_a_pattern_check_raised_on_is_its_matchs_output(tmp_path):
    user = str(tmp_path / "prog.py")
    mul, sub = _graph(user)
    scope: dict = {"__name__": "torch._inductor.fx_passes.fake_pass"}
    exec(compile(PASS_SRC, TORCH_PASS, "exec"), scope)
    with pytest.raises(IndexError) as info:
        scope["apply"]([sub], mul)
    frames, facts = lowering_node.failing_node(info.value)
    # the match's output (the pattern's anchor), not its operand (line 14)
    assert [f["lineno"] for f in frames] == [15]
    assert facts["node"] == "sub" and facts["pattern"] == "softmax_pattern"
    assert facts["check"].startswith("check (torch/_inductor/fx_passes/fake_pass.py:")


REPLACEMENT_SRC = '''
class Match:
    def __init__(self, nodes):
        self.nodes = nodes

def randperm_index_pattern(x, slice_shape):
    pass

def make_check(search_fn):
    def check_fn(match):
        search_fn  # register_replacement's check re-traces its search function
        return {}["slice_shape"]
    return check_fn

def apply(graph_nodes, operand):
    check_fn = make_check(randperm_index_pattern)
    for node in graph_nodes:
        m = Match([operand, node])
        check_fn(m)
'''


def test_a_replacements_check_names_its_search_function_and_the_lines_it_matched(tmp_path):
    """probes35b mixup_randperm_pairs, blind: register_replacement's check for
    randperm_index_pattern raised on an unsliced `x[torch.randperm(n)]`; the failure named
    neither the pattern (its entry has no handler; the check's closure holds the search
    function) nor the randperm line, and its reason dropped where torch failed."""
    from compdiag.analyses.diagnoses.failures import one_line
    from compdiag.ingest.own_records import failing_node_words

    user = str(tmp_path / "prog.py")
    mul, sub = _graph(user)
    scope: dict = {"__name__": "torch._inductor.fx_passes.fake_pass"}
    exec(compile(REPLACEMENT_SRC, TORCH_PASS, "exec"), scope)
    with pytest.raises(KeyError) as info:
        scope["apply"]([sub], mul)
    frames, facts = lowering_node.failing_node(info.value)
    assert [f["lineno"] for f in frames] == [15]
    assert facts["pattern"] == "randperm_index_pattern" and facts["match_lines"] == [14, 15]
    words = failing_node_words({"from": "traceback", **facts})
    assert words.startswith("in pattern randperm_index_pattern's check check_fn (")
    assert words.endswith("of a match at lines 14 and 15")
    tb = ("Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n"
          "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
          "RuntimeError: Not all inputs to pattern found\n")
    said = one_line("BackendCompilerFailed", f"backend='inductor' raised: ({words})", tb)
    assert said.startswith("RuntimeError: Not all inputs to pattern found (in pattern "
                           "randperm_index_pattern's check")


def test_a_users_own_frame_innermost_needs_no_node(tmp_path):
    """The user's code raised (a fake implementation of theirs): its frame is the line."""
    user = str(tmp_path / "prog.py")
    mul, sub = _graph(user)
    scope: dict = {"__name__": "torch._inductor.fx_passes.fake_pass"}
    exec(compile(PASS_SRC.replace("return [][0]", "return user_check()"), TORCH_PASS, "exec"),
         scope)
    scope["user_check"] = lambda: [][0]  # defined in this (user) file
    with pytest.raises(IndexError) as info:
        scope["apply"]([sub], mul)
    assert lowering_node.failing_node(info.value) is None


def test_a_failure_takes_the_nodes_line_and_says_where_torch_failed(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    s.ing.event(LOWERING_NODE, "0/0", {"from": "traceback", "node": "sub",
                                       "target": "aten.sub.Tensor",
                                       "check": "_other_is_broadcasted_in_dim (joint_graph.py:9)",
                                       "pattern": "mul_softmax_pattern"},
                payload=json.dumps([{"filename": str(s.user), "lineno": 15, "line": None}]))
    s.failure("0/0", stage="inductor_lowering", exc_type="IndexError",
              message="list index out of range", filename=str(s.user), lineno=3)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 15
    assert "mul_softmax_pattern" in d["reason"] and "on node sub" in d["reason"]


def test_a_user_frame_torch_logged_while_compiling_is_the_failures_line(tmp_path, monkeypatch):
    user = tmp_path / "prog.py"
    user.write_text("x = 1\n" * 30)
    events = []

    class Capture:
        paused_depth = 0
        ing = type("Ing", (), {"event": lambda self, *a, **k: events.append((a, k))})()

    monkeypatch.setattr(torch_log_frames, "current_compile_id", lambda: "0/0")
    record = logging.LogRecord(
        "torch.fx.experimental.symbolic_shapes", logging.WARNING, "symbolic_shapes.py", 1,
        "Failing guard allocated at %s", (f"return F.layer_norm(nt, [12])  # {user}:20 in f "
                                          "(nested/_internal/ops.py:1806 in native_layer_norm)",),
        None)
    torch_log_frames._record(Capture(), record)
    ((args, kwargs),) = events
    assert args[0] == LOWERING_NODE and args[2]["from"] == "torch_log"
    assert json.loads(kwargs["payload"])[0]["lineno"] == 20
    # no compile running, or no user file named: nothing
    monkeypatch.setattr(torch_log_frames, "current_compile_id", lambda: None)
    torch_log_frames._record(Capture(), record)
    assert len(events) == 1

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    s.ing.event(LOWERING_NODE, "0/0", args[2], payload=kwargs["payload"])
    s.failure("0/0", stage="dynamo", exc_type="IndexError", message="list index out of range",
              filename=str(s.user), lineno=3)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 20 and d["user_frame"]["filename"] == str(user)
    assert "Failing guard allocated at" in d["reason"]


def test_a_buffer_a_codegen_frame_held_leads_to_the_nodes_it_was_made_from(tmp_path):
    """An Inductor IR buffer or a scheduler node (a codegen or scheduling failure's subject)
    is not a graph node: the graph nodes it was made from (`origins`, through a scheduler
    node's `node`) give the line."""
    user = str(tmp_path / "prog.py")
    mul, sub = _graph(user)
    scope: dict = {"__name__": "torch._inductor.fx_passes.fake_pass"}
    exec(compile("class Buf:\n    def __init__(self, o):\n        self.origins = o\n"
                 "class SNode:\n    def __init__(self, b):\n        self.node = b\n"
                 "def codegen(snode):\n    return [][0]\n",
                 TORCH_PASS, "exec"), scope)
    with pytest.raises(IndexError) as info:
        scope["codegen"](scope["SNode"](scope["Buf"]({sub})))
    frames, facts = lowering_node.failing_node(info.value)
    assert [f["lineno"] for f in frames] == [15] and facts["node"] == "sub"


def test_the_log_handler_never_silences_pythons_last_resort(monkeypatch):
    """Fail open: on a torch logger with no handler of its own (Python's last-resort handler
    prints its warnings), capture adds none, so nothing the program printed disappears."""
    import torch._logging._internal as internal

    bare = logging.getLogger("torch._compdiag_test_bare")
    served = logging.getLogger("torch._compdiag_test_served")
    served.addHandler(logging.NullHandler())
    monkeypatch.setattr(internal.log_registry, "get_log_qnames",
                        lambda: {"torch._compdiag_test_bare", "torch._compdiag_test_served"})

    class Capture:
        torch_log_handler = logging.NullHandler()

    cap = Capture()
    torch_log_frames.attach(cap)
    assert cap.torch_log_handler not in bare.handlers
    assert cap.torch_log_handler in served.handlers
    served.removeHandler(cap.torch_log_handler)
    logging.getLogger("torch").removeHandler(cap.torch_log_handler)


def test_a_failing_guard_torch_allocated_in_its_own_code_is_at_the_graph_node_calling_it(
        tmp_path, monkeypatch):
    """probes33g packed_jagged_encoder (pytorch#183369, #182217): a jagged tensor built inside
    the compiled forward, then `self.norm(...)`; guard building failed with a bare IndexError
    after torch logged "Failing guard allocated at return F.layer_norm(  #
    nn/modules/normalization.py:228 in forward (nested/_internal/ops.py:1806 ...)", a line of
    torch's own, so the failure fell back to the compiled call (line 32) with "check that the
    line runs in eager". The graph's node calling layer_norm gives the user line, and the
    failure names why (a guard on the jagged tensor's ragged size) with a fix that runs."""
    events = []

    class Capture:
        ing = type("Ing", (), {"event": lambda self, *a, **k: events.append((a, k))})()

    monkeypatch.setattr(torch_log_frames, "current_compile_id", lambda: "0/0")
    record = logging.LogRecord(
        "torch.fx.experimental.symbolic_shapes", logging.WARNING, "symbolic_shapes.py", 1,
        "Failing guard allocated at %s", ("return F.layer_norm(  # nn/modules/normalization.py"
                                          ":228 in forward (nested/_internal/ops.py:1806 in "
                                          "native_layer_norm_default)",), None)
    torch_log_frames._record(Capture(), record)
    ((args, kwargs),) = events
    assert args[2]["library"] and json.loads(kwargs["payload"])[0]["code"] == \
        "return F.layer_norm("

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    s.ing.record({"frame_id": 0, "frame_compile_id": 0, "dynamo_output_graph": {}},
                 "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_):\n"
                 f"        # File: {s.user}:15 in forward, code: h = torch.relu(x)\n"
                 "        relu = torch.relu(L_x_)\n"
                 f"        # File: {s.user}:16 in forward, code: h = self.norm(h)\n"
                 "        h = torch.nn.functional.layer_norm(relu, (32,), None, None, 1e-05)\n")
    s.ing.event(LOWERING_NODE, "0/0", args[2], payload=kwargs["payload"])
    s.failure("0/0", stage="dynamo", exc_type="IndexError", message="list index out of range",
              traceback="  File \"torch/fx/experimental/symbolic_shapes.py\", line 6496, in "
                        "issue_guard\n    source = symbol_to_source[symbol][0]\n"
                        "IndexError: list index out of range")
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 16, d["user_frame"]
    assert "nested/_internal/ops.py" in d["reason"], d["reason"]
    assert "ragged size" in d["explanation"] and "outside the compiled function" in d["fix"]


def test_a_codegen_frame_named_with_the_failing_node_makes_the_stage_codegen():
    """probes46c bisenet: the backward's compile metrics carry no traceback, only the wrapped
    "AssertionError: "; the failing node's words name torch's frame that raised (cpp.py's
    store), which is codegen, not lowering."""
    from compdiag.ingest.parse_failures import classify_stage

    bare = "AssertionError:  (in the backward graph)"
    assert classify_stage("InductorError", bare, "\nAssertionError: ") == "inductor_lowering"
    named = bare + " (in store (torch/_inductor/codegen/cpp.py:3055), on node index_put"
    assert classify_stage("InductorError", named, "\nAssertionError: ") == "inductor_codegen"


def test_a_kernels_computing_origin_leads_its_views():
    import torch

    from compdiag.capture.lowering_node import _layout_only

    g = torch.fx.Graph()
    x = g.placeholder("x")
    e = g.call_function(torch.ops.aten.expand.default, (x, [2, 2]))
    i = g.call_function(torch.ops.aten.index_put.default, (x, [e], e))
    assert _layout_only(e) and not _layout_only(i)
