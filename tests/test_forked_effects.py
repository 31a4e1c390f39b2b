"""The forked side-effect check (capture/forked_effects.py, capture/python_state.py): a
compiled call's Python side effects against eager's in a forked copy of the process.

Before it, a compiled function whose code appends to a list, sets an attribute or prints was
never compared with eager at all (a replay would do it twice), so Dynamo dropping one of
those was "no problems found" (probes43a local_scope_events_dropped, probes43f
step_recorder_local_class: pytorch/pytorch#197896; probes43e reorder_print_in_helper_dropped;
probes43h alt_phase_identity_branch)."""

from __future__ import annotations

import pytest
import torch

from compdiag.capture import forked_effects, python_state

pytestmark = pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")


def _lost(checks: list) -> list:
    return [o for c in checks for o in c.outputs if o.detail.get("verdict") == "lost_side_effect"]


# -- what is described, and how two descriptions differ -------------------------------------------

class Holder:
    def __init__(self) -> None:
        self.a, self.b = object(), object()
        self.active = self.a
        self.log: list = []
        self.total = 0.0


def test_descriptions_name_rebinding_lengths_and_tolerate_float_noise() -> None:
    h = Holder()
    roots = [python_state.Root("h", lambda: h)]
    keep: list = []
    ids: dict = {}
    python_state.describe(roots, None, keep, ids)
    before = python_state.describe(roots, ids)

    h.active = h.b
    h.log.append(1)
    h.total += 1e-9
    after = python_state.describe(roots, ids)
    diffs = python_state.differences(before, after)
    assert [d[0] for d in diffs] == ["h.active", "h.log"], diffs
    assert diffs[0][1:] == ("the object h.a", "the object h.b")
    assert diffs[1][1:] == ("a list of 0 items", "a list of 1 item")
    # the list's new item is not listed again under the list whose length differs
    h.total = 5.0
    numbers = python_state.describe(roots, ids)
    assert any(d[0] == "h.total" for d in python_state.differences(after, numbers))
    # values drawn at random: structure only
    assert not any(d[0] == "h.total" for d in python_state.differences(after, numbers, False))


def test_printed_lines_compare_without_numbers_or_grad_fn() -> None:
    assert forked_effects.printed_difference("loss tensor(1.25, grad_fn=<AddBackward0>)\n",
                                             "loss tensor(1.2501, grad_fn=<Compiled>)\n") is None
    eager, compiled = forked_effects.printed_difference("step 1\n", "")
    assert eager == "1 line: `step 1`" and compiled == "0 lines"


# -- end to end: Dynamo drops a side effect (pytorch#197896) ----------------------------------------

def make_step():
    history: list = []

    class Recorder:
        def note(self, x):
            history.append(x.shape[0])  # the dropped side effect

    def step(x):
        Recorder().note(x)
        return x.sin()

    return step, history


def test_a_dropped_closure_append_is_found_at_its_line(checks, capsys) -> None:
    step, history = make_step()
    compiled = torch.compile(step, backend="eager")
    for _ in range(2):
        compiled(torch.randn(4))
    if len(history) == 2:
        pytest.skip("this torch carries out the append (pytorch#197896 fixed)")
    lost = _lost(checks)
    assert lost, checks
    o = lost[0]
    assert o.output == "history" and o.detail["eager"] == "a list of 1 item"
    assert o.detail["compiled"] == "a list of 0 items"
    assert o.detail["user_frame"]["line"].startswith("history.append(x.shape[0])")
    # the program's own list is as the compiled code left it: the child's append is its own
    assert len(history) == 0


COUNT = {"calls": 0}


class Meter:
    def __init__(self) -> None:
        self.seen: list = []


def test_side_effects_carried_out_are_not_reported_and_happen_once(checks, capsys) -> None:
    meter = Meter()

    def step(x, m):
        COUNT["calls"] += 1
        m.seen.append(x.shape[0])
        print("step", x.shape[0])
        return x.cos()

    compiled = torch.compile(step, backend="eager")
    for _ in range(4):
        compiled(torch.randn(3), meter)
    assert _lost(checks) == [], _lost(checks)
    assert COUNT["calls"] == 4 and meter.seen == [3, 3, 3, 3]
    assert capsys.readouterr().out.count("step 3") == 4


def test_a_call_that_writes_a_file_is_never_forked(tmp_path) -> None:
    def saves(x):
        torch.save(x, str(tmp_path / "x.pt"))

    roots, funcs = python_state.reach(saves, (torch.ones(1),), {}, ["x"])
    assert forked_effects.refusal(funcs) == "it calls save"


# -- a graph that computes a line eager never ran (pytorch#198197) ---------------------------------

def scale_of(s):
    try:
        getattr(type(s), "exp")
    except AttributeError:
        return s
    return torch.as_tensor(s).exp()  # eager never runs this for a float


def test_a_line_only_the_trace_took_is_named(checks) -> None:
    head = torch.nn.Linear(3, 3)

    def logits(x, s):
        return head(x) * scale_of(s)

    x = torch.randn(2, 3)
    out = torch.compile(logits, backend="eager")(x, 2.0)
    if torch.allclose(out, head(x) * 2.0):
        pytest.skip("this torch raises the AttributeError while tracing (pytorch#198197 fixed)")
    (o,) = [o for c in checks for o in c.outputs if not o.ok]
    assert o.detail["verdict"] == "traced_other_path", o.detail
    assert o.detail["unrun"]["line"].startswith("return torch.as_tensor(s).exp()")


def test_the_lines_eager_ran_are_compared_with_a_graphs_stack_traces() -> None:
    gm = torch.fx.symbolic_trace(lambda x: x + 1)
    node = next(n for n in gm.graph.nodes if n.op == "call_function")
    node.meta["stack_trace"] = f'  File "{__file__}", line 7, in f\n    y = x + 1\n'
    assert forked_effects.unrun_node([("0/0", gm, None, False)], {(__file__, 7)}) is None
    cid, found = forked_effects.unrun_node([("0/0", gm, None, False)], {(__file__, 6)})
    assert cid == "0/0" and found["user_frame"]["lineno"] == 7 and found["node"] == node.name


def test_printed_numbers_that_differ_beyond_noise_are_a_difference() -> None:
    """probes44d obs_norm_print_before_update: a reordered print showed a running mean after
    its in-place update, one step ahead of eager: the same words, other numbers."""
    assert forked_effects.printed_difference("mean 0.5000\n", "mean 0.5001\n") is None
    assert forked_effects.printed_difference("mean 0.5000\n", "mean 0.7500\n") is not None
    assert forked_effects.printed_difference("mean 0.5000\n", "mean 0.7500\n", False) is None


def test_a_numpy_scalar_turned_array_is_a_difference() -> None:
    """probes44d resume_numpy_step_counter: `self.step += 1` on an np.int64 left a 0-d array
    under compile, which a dict then refused as a key."""
    np = pytest.importorskip("numpy")
    box = Holder()
    roots = [python_state.Root("h", lambda: box)]
    box.total = np.int64(3)
    before = python_state.describe(roots)
    box.total = np.array(4)
    (path, eager, compiled), = python_state.differences(before, python_state.describe(roots))
    assert (path, eager, compiled) == ("h.total", "a NumPy int64", "a NumPy ndarray")
