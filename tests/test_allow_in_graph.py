"""The allow_in_graph kind (probes27's allow_in_graph_stats: a stats helper marked
allow_in_graph broke at its call, inside and recompiled every step, and no diagnosis named the
marking; the `.item()` break's fix crashed the program). Capture keeps the user's marking;
explain names it at the call and folds the breaks and recompiles it caused."""

from __future__ import annotations

import torch

from compdiag.capture import config_sets
from test_explain import Store


def _marking(s: Store, first: int, last: int, name: str = "record_norm", at: int = 10) -> None:
    s.ing.event("allow_in_graph", None, {
        "function": name, "name": name, "filename": str(s.user), "first": first, "last": last,
        "call": {"filename": str(s.user), "lineno": at, "name": "<module>",
                 "line": "@torch._dynamo.allow_in_graph"}}, None)


def test_a_break_inside_the_marked_function_is_the_markings_consequence(tmp_path):
    """On main the break inside the marked function was a graph break of its own, with the
    `.item()` fix; now the marking is the diagnosis and the break folds under it. A break
    elsewhere stays its own, and a marked function with no break says nothing."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("1/0", co_name="record_norm", lineno=11)
    _marking(s, 11, 14)
    _marking(s, 40, 44, name="clean_helper", at=39)
    s.graph_break("1/0", 13, gb_type="Unsupported Tensor.item() call with "
                  "capture_scalar_outputs=False", code="GB0124")
    s.graph_break("0/0", 30)
    diags = s.explain()
    top = diags[0]
    assert top["kind"] == "allow_in_graph" and top["user_frame"]["lineno"] == 13
    assert "record_norm() is marked allow_in_graph (line 10)" in top["reason"]
    assert "torch.compiler.disable" in top["fix"] and "capture_scalar_outputs" not in top["fix"]
    assert [c["user_frame"]["lineno"] for c in top["consequences"]] == [13]
    rest = [(d["kind"], d["user_frame"]["lineno"]) for d in diags[1:]]
    assert ("graph_break", 30) in rest and ("graph_break", 13) not in rest
    assert not any("clean_helper" in d["reason"] for d in diags)


def test_capture_keeps_the_users_marking_through_torch_compiler(monkeypatch):
    """torch.compiler.allow_in_graph calls torch._dynamo.allow_in_graph: one wrapper keeps
    both, with the function's line span and the marking's line; the function is still
    marked (torch's own registry), and a function of torch's is not kept."""
    import torch._dynamo as dynamo

    # torch's own function, whatever another test of this worker installed before (capture's
    # wrapper is kept once made: it would keep this marking for its own capture)
    original = dynamo.allow_in_graph
    while getattr(original, "_compdiag", False):
        original = original.__wrapped__
    monkeypatch.setattr(dynamo, "allow_in_graph", original)
    kept = []

    class Capture:
        paused_depth = 0

        def guarded(self, where, fn, *args):
            fn(*args)

        class ing:  # noqa: N801
            @staticmethod
            def event(kind, cid, data, payload):
                kept.append((kind, data))

    config_sets._wrap_allow_in_graph(Capture(), lambda f: f == __file__)

    def helper(t):
        return t * 2

    assert torch.compiler.allow_in_graph(helper) is helper
    dynamo.allow_in_graph(torch.nn.functional.gelu)  # not the user's: not kept
    ((kind, data),) = kept
    assert kind == "allow_in_graph" and data["name"] == "helper"
    assert data["first"] == helper.__code__.co_firstlineno and data["last"] > data["first"]
    assert data["call"]["filename"] == __file__ and "allow_in_graph(helper)" in data["call"]["line"]
    from torch._dynamo import trace_rules

    assert id(helper) in trace_rules._allowed_callable_ids


STALE_SRC = '''import torch

CFG = {"huber_delta": 1.0}


@torch._dynamo.allow_in_graph
def robust_residual(r):
    d = CFG["huber_delta"]
    return torch.where(r.abs() <= d, 0.5 * r * r, d * (r.abs() - 0.5 * d))


def loss(pred, y):
    return robust_residual(pred - y).mean()


CFG["huber_delta"] = 0.5
'''


def test_a_global_a_marked_function_reads_is_the_stale_value_at_its_read(tmp_path):
    """probes36c allow_in_graph_stale_global, blind: a helper marked allow_in_graph read a
    global threshold the program annealed; the compiled loss kept the first value (no guard:
    the helper is not traced). Once the module check ran in training mode it found the
    difference at the call (line 13) with assume_constant_result's words, and this kind read
    the failed accuracy check as "Dynamo broke the graph (AccuracyMismatch)". Now the
    accuracy diagnosis is at the global's read (line 8) with the marking's fix, and a failed
    check is no break of the marking's."""
    s = Store(tmp_path)
    s.user.write_text(STALE_SRC)
    s.compile("0/0", co_name="loss", lineno=12)
    _marking(s, 7, 9, name="robust_residual", at=6)
    s.accuracy("0/0", [("result 0", False, 0.8, 0.78, {"verdict": "changed_after_compile",
                                                        "function": "loss", "call": 2})])
    s.failure("0/0", stage="accuracy", exc_type="AccuracyMismatch", message="result 0 differs",
              filename=str(s.user), lineno=13)
    diags = s.explain()
    top = diags[0]
    assert top["kind"] == "accuracy" and top["user_frame"]["lineno"] == 8, top
    assert "the global `CFG['huber_delta']`" in top["reason"] and "allow_in_graph" in top["fix"]
    assert not [d for d in diags if d["kind"] == "allow_in_graph"]


FUNCTIONAL_SRC = '''import torch
from torch.func import functional_call

net = torch.nn.Linear(4, 1)


def task_loss(params, x, y):
    pred = functional_call(net, params, (x,))
    return ((pred - y) ** 2).mean()


params = dict(net.named_parameters())
'''


def test_a_functional_call_that_kept_the_modules_parameters_is_named_at_its_line(tmp_path):
    """probes36c maml_functional_call_stale, blind: the whole-function check found call 2 of a
    compiled MAML loss different (changed_after_compile) at the loss's last line, with
    assume_constant_result's fix; the graph held the module's own parameters, passed on the
    first call. Said at the functional_call line, with the fix that clones them."""
    s = Store(tmp_path)
    s.user.write_text(FUNCTIONAL_SRC)
    s.compile("0/0", co_name="task_loss", lineno=7)
    s.accuracy("0/0", [("result 0", False, 0.09, 0.18, {"verdict": "changed_after_compile",
                                                         "function": "task_loss", "call": 2})])
    (top,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert top["user_frame"]["lineno"] == 8 and "functional_call(net, ...)" in top["reason"]
    assert "net.named_parameters()" in top["fix"] and "assume_constant_result" not in top["fix"]


ALIASED_SRC = '''import torch


@torch.compile
def decay_and_peek(buf, window, gain):
    buf.mul_(gain).add_(0.1)
    return window[0]


buf = torch.zeros(5, 6)
for step in range(8):
    peek = decay_and_peek(buf, buf[1:], 0.9)
'''


def test_inputs_sharing_a_storage_are_the_cause_not_a_baked_value(tmp_path):
    """probes41b aot_aliased_window_peek (pytorch#198095), blind: `step(buf, buf[1:], g)`
    writes `buf` in place and returns a view of the window; compiled differed on call 4,
    said as "a value the graph took as a constant has changed", with a constants fix. The
    graph's check records that input 1 shares input 0's storage."""
    from compdiag.capture.accuracy_compare import _clone, _to64, describe_inputs

    buf = torch.zeros(5, 6)
    said = describe_inputs([buf, buf[1:], 0.9])
    assert said[1] == "float32[4, 6] (shares the storage of input 0)" and "shares" not in said[0]
    a, b = _clone([buf, buf[1:]])     # the replay writes one and reads the other, as the
    a.add_(1)                         # program does: one copied storage, two views of it
    assert torch.equal(b, a[1:]) and a.data_ptr() != buf.data_ptr() and buf.sum() == 0
    a64, b64 = _to64([buf, buf[1:]])
    assert b64.dtype == torch.float64 and b64.storage_offset() == 6 and torch.equal(b64, a64[1:])

    s = Store(tmp_path)
    s.user.write_text(ALIASED_SRC)
    s.compile("0/0", co_name="decay_and_peek", lineno=5)
    s.post_grad("0/0", f"        # File: {s.user}:6 in decay_and_peek, code: buf.mul_(gain)\n"
                "        copy_ = torch.ops.aten.copy_.default(arg0_1, add)\n")
    s.accuracy("0/0", [("output 0", True, 0.0, 0.0, {"inputs": said}),
                       ("result 0", False, 1.43, 1.94, {"verdict": "changed_after_compile",
                                                        "function": "decay_and_peek",
                                                        "call": 4})])
    (top,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert "inputs 0 and 1 of the graph share one storage" in top["reason"], top["reason"]
    assert "has changed since" not in top["reason"] and "synthetic base" in top["explanation"]
    assert "take the view inside the compiled function" in top["fix"]
