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
    x = torch.randn(4)
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
    x = torch.randn(4)
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
