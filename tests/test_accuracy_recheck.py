"""`--check-accuracy` checks a graph again, once, at the first call after the program changed
a parameter it reads in place (issue 29 section 4, where bugs hide): set16's
freezing_stale_weights.py (pytorch/pytorch#103990) loads new weights into a model compiled
with Inductor's freezing, which folded the old ones into the compiled code as constants; the
one check, at the first call, agreed, and the run was "no problems" past two cache bypasses.
Without a compile: a stand-in backend that freezes the weight it was compiled with."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.capture.accuracy import AccuracyChecker


class Lin(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(4))

    def forward(self, x):
        return (torch.relu(x * self.weight) + 1.0,)


def _frozen(gm: torch.fx.GraphModule):
    w = gm.weight.detach().clone()   # the value at compile time, as a constant
    return lambda x: (torch.relu(x * w) + 1.0,)


def _checked(checks: list):
    gm = torch.fx.symbolic_trace(Lin())
    return gm, AccuracyChecker(checks.append, grads=False).wrap(
        gm, _frozen(gm), "0/0", lambda g, _i: _frozen(g))


def test_an_in_place_update_of_a_parameter_is_checked_again_at_the_next_call():
    checks: list = []
    gm, checked = _checked(checks)
    x = torch.arange(1.0, 5.0)  # positive: relu passes every value, so a stale weight shows
    with torch.no_grad():
        checked(x)
        checked(x)                       # nothing changed: no second check
        gm.weight.mul_(3.0)              # the program's hot swap, in place
        checked(x)
        gm.weight.add_(1.0)
        checked(x)                       # once only
    assert [c.ok for c in checks] == [True, False], checks
    out = checks[1].outputs[0]
    assert out.detail["after_param_update"] == ["weight"]
    assert out.detail["freezing"] in (True, False)
    assert checks[1].divergent_node["node"] == "mul"   # the first op reading the weight


def test_an_update_the_compiled_code_sees_passes_its_second_check():
    checks: list = []
    gm = torch.fx.symbolic_trace(Lin())
    checked = AccuracyChecker(checks.append, grads=False).wrap(
        gm, gm, "0/0", lambda g, _i: g)  # reads the live weight, as compiled code without freezing
    x = torch.arange(1.0, 5.0)  # positive: relu passes every value, so a stale weight shows
    with torch.no_grad():
        checked(x)
        gm.weight.mul_(3.0)
        checked(x)
    assert [c.ok for c in checks] == [True, True]


def test_a_difference_after_an_update_under_freezing_names_freezing(tmp_path):
    """The diagnosis of such a check says the compiled code kept the old parameters, names
    freezing and gives its fix, at the first op reading them (set16 freezing_stale_weights:
    a cache bypass at the docstring line ranked first before)."""
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    node = {"node": "linear", "op": "linear",
            "user_frame": {"filename": str(s.user), "lineno": 24, "line": "line_24 = 24"}}
    s.accuracy("0/0", [("output 0", True, 1e-8, 1e-8, {}),
                       ("output 0", False, 0.5, 26.0, {
                           "verdict": "miscompile", "after_param_update": ["embed_weight"],
                           "freezing": True, "divergent_node": node})])
    (d,) = s.explain()
    assert d["kind"] == "accuracy" and d["user_frame"]["lineno"] == 24, d
    assert "ignores the in-place update of its parameters (embed_weight)" in d["reason"]
    assert "freezing" in d["reason"] and "freezing off" in d["fix"]


@torch.library.custom_op("cdtest_recheck::shift_into", mutates_args=("dst",))
def shift_into(src: torch.Tensor, dst: torch.Tensor) -> None:
    for k in range(src.shape[0] - 1):
        dst[k + 1] = src[k]


def _push(history, frame):
    snapshot = history.clone()
    torch.ops.cdtest_recheck.shift_into(snapshot, history)
    history[0] = frame
    return (history.mean(0),)


def _drops_copies(gm: torch.fx.GraphModule, _inputs=None):
    """A stand-in compiler with pytorch#198031's bug: a clone that an op reads while writing
    the clone's source is removed (the op gets the source itself)."""
    from compdiag.capture.mutated_args import dropped_copy

    g = torch.fx.Graph()
    env: dict = {}
    for n in gm.graph.nodes:
        if any(dropped_copy(u, n) for u in n.users):
            env[n] = env[n.args[0]]
            continue
        env[n] = g.node_copy(n, lambda a: env[a])
    out = torch.fx.GraphModule(gm, g)
    out.recompile()
    return out


def test_a_graph_that_updates_its_inputs_is_checked_again_and_a_dropped_copy_is_named():
    """Issue 29 §4 (set19 custom_op_clone_reinplace, pytorch#198031): a graph that updates a
    history buffer in place was checked once, at its first call, from the program's initial
    state (zeros), where dropping the clone changes nothing: "no problems". Such a graph is
    checked again at its next call, and the localiser compares what an op returning nothing
    writes: the first divergent op is the custom op, which read a clone the compiled code
    dropped. On main: one check, ok."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from compdiag.capture.mutated_args import written

    gm = make_fx(_push)(torch.zeros(4, 3), torch.ones(3))
    for i, n in enumerate(gm.graph.nodes):  # each op at a line of its own, as Dynamo's are
        n.meta["stack_trace"] = f'  File "/home/u/train.py", line {20 + i}, in push\n    op\n'
    (op,) = [n for n in gm.graph.nodes if "shift_into" in str(n.target)]
    assert [a.name for a in written(op)] == [op.args[1].name]
    checks: list = []
    checked = AccuracyChecker(checks.append, grads=False).wrap(
        gm, _drops_copies(gm), "0/0", _drops_copies)
    history = torch.zeros(4, 3)
    with torch.no_grad():
        for step in range(4):
            checked(history, torch.full((3,), float(step + 1)))
    assert [c.ok for c in checks] == [True, False], checks
    node = checks[1].divergent_node
    assert "shift_into" in node["op"], node
    assert "clone" in node["dropped_copy"]["op"], node


def test_a_dropped_copy_is_said_at_the_op_that_read_the_buffer_it_writes(tmp_path):
    """The diagnosis of such a check: at the op's line, naming the copy and its line, with a
    fix that gives the op a source it does not write (not "find the pass with bisect")."""
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    at = {"filename": str(s.user), "line": "x"}
    node = {"node": "shift_into", "op": "shift_into.default",
            "user_frame": {**at, "lineno": 21},
            "dropped_copy": {"node": "snapshot", "op": "clone",
                             "user_frame": {**at, "lineno": 20}}}
    s.accuracy("0/0", [("input history (updated in place)", False, 4.0, 0.6, {
        "verdict": "miscompile", "divergent_node": node})])
    (d,) = s.explain()
    assert d["kind"] == "accuracy" and d["user_frame"]["lineno"] == 21, d
    assert "reads clone (node snapshot at line 20), a copy of the tensor it writes" in d["reason"]
    assert d["fix"].startswith("Give shift_into.default a source it does not write")
    assert "compdiag minify" in d["fix"]


def test_a_tensor_the_graph_holds_as_an_attribute_is_restored_after_the_replays() -> None:
    """probes26: a compiled `opt.step()` holds its parameters as graph attributes (static
    addresses); the eager replays wrote them in place, so under --check-accuracy the SGD
    update was applied three times. Every tensor the graph reads by attribute is put back."""
    import torch
    import torch.fx

    from compdiag.capture.accuracy_compare import _preserved_state

    class Step(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(3), requires_grad=False)

        def forward(self, g):
            self.w.add_(g, alpha=-0.1)
            return self.w * 1

    gm = torch.fx.symbolic_trace(Step())
    assert any(n.op == "get_attr" for n in gm.graph.nodes)
    with _preserved_state(gm):
        gm(torch.ones(3))
        gm(torch.ones(3))
    assert torch.equal(gm.w, torch.ones(3)), gm.w


def test_a_wrong_write_back_into_an_input_offers_returning_the_value(tmp_path):
    """probes39f stream_state_reset_flip, blind: `state[:, ended] = 0; state.add_(state.flip(0))`
    in a compiled function wrote wrong values back into `state` (Inductor's reinplacing,
    pytorch#198270); the fix offered only bisect and minify, where returning the new state and
    assigning it outside is right at once. Offered where the output that differs is an input
    updated in place, and only there."""
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("1/0")
    at = {"filename": str(s.user), "line": "x", "lineno": 12}
    node = {"node": "setitem", "op": "setitem", "user_frame": at,
            "shows_at": {"node": "add_", "op": "add_"}}
    s.accuracy("0/0", [("input state (updated in place)", False, 0.6, 1.7, {
        "divergent_node": node})])
    s.accuracy("1/0", [("output 0", False, 0.6, 1.7, {"divergent_node": node})])
    by_cid = {d["compile_id"]: d for d in s.explain()}
    assert "instead of updating state in place" in by_cid["0/0"]["fix"], by_cid["0/0"]
    assert "compdiag bisect" in by_cid["0/0"]["fix"]
    assert "in place" not in by_cid["1/0"]["fix"], by_cid["1/0"]


def test_the_low_precision_note_is_only_for_a_low_precision_output():
    """probes40b jacobi_snapshot_inplace, blind: a float32 miscompile's fix ended with "fp16/bf16
    differences within ~1e-2 are expected reordering", which had nothing to do with it."""
    from compdiag.analyses.miscompile_fix import REPORTED_FP_NOISE, accuracy_fix

    assert REPORTED_FP_NOISE not in accuracy_fix(1, ["a.py"], {}, None, low=False)
    assert REPORTED_FP_NOISE in accuracy_fix(1, ["a.py"], {}, None, low=True)


def test_a_miscompile_fix_offers_a_workaround_at_the_divergent_ops_line() -> None:
    """probes43b autocontrast_uint8_amin (pytorch#191499), blind: Inductor's uint8 `amin`
    returned 0; the fix said bisect and minify only, while computing the op outside compiled
    code, or on int32, was right. A workaround at the op's line now follows, with the wider
    dtype for an integer or 16-bit op; none without a line, none for a bug injector."""
    from compdiag.analyses.miscompile_fix import accuracy_fix

    node = {"node": "lo", "op": "amin", "dtype": "torch.uint8",
            "user_frame": {"filename": "a.py", "lineno": 26, "line": "lo = flat.amin(dim=1)"}}
    fix = accuracy_fix(1, ["a.py"], {}, None, low=False, node=node)
    assert "at line 26 (`lo = flat.amin(dim=1)`)" in fix and "@torch.compiler.disable" in fix
    assert "`.to(torch.uint8)` back" in fix
    wide = accuracy_fix(1, ["a.py"], {}, None, low=False, node={**node, "dtype": "torch.float32"})
    assert "@torch.compiler.disable" in wide and "wider dtype" not in wide
    assert "Until it is fixed" not in accuracy_fix(1, ["a.py"], {}, None, low=False)
    assert "Until it is fixed" not in accuracy_fix(1, ["a.py"], {"x": 1}, None, node=node)


VIEW_GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_frames_: "f32[4, 20][20, 1]cpu"):
        l_frames_ = L_frames_

        # File: {file}:5 in boost, code: pilots = frames.unfold(1, 1, 5)
        pilots: "f32[4, 4, 1][20, 5, 1]cpu" = l_frames_.unfold(1, 1, 5)

        # File: {file}:6 in boost, code: pilots.mul_(2.0)
        mul_: "f32[4, 4, 1][20, 5, 1]cpu" = pilots.mul_(2.0);  pilots = mul_ = None
        return (l_frames_,)
'''


def test_a_miscompiled_write_through_an_unfold_view_names_the_view(tmp_path) -> None:
    """probes43b pilot_tone_unfold_gain (pytorch#198102), blind: `frames.unfold(1, 1, 5)
    .mul_(gain)` came back with the elements between the windows zeroed; said at `mul_`
    with no cause. The view that is not one-to-one is named, from Dynamo's graph, with a fix
    that writes through a plain slice or out of place."""
    from test_explain import Store, _ids

    s = Store(tmp_path)
    s.compile("0/0", co_name="boost", lineno=4)
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, VIEW_GRAPH.format(file=s.user))
    node = {"node": "mul_", "op": "mul_", "dtype": "torch.float32",
            "user_frame": {"filename": str(s.user), "lineno": 6, "line": "pilots.mul_(2.0)"}}
    s.accuracy("0/0", [("output 0", False, 1.1, 0.7, {
        "verdict": "miscompile", "fp64": {"eager_rel": 2e-8, "compiled_rel": 0.7}})], node=node)
    top = s.explain()[0]
    assert top["kind"] == "accuracy" and "a view made by `unfold` (line 5)" in top["reason"], top
    assert "pytorch/pytorch#198102" in top["explanation"]
    assert top["fix"].startswith("Do not write through the `unfold` view")
