"""The first node where precision is lost is found by one lockstep pass of eager and float64
(accuracy_replay.paired_values), not by a bisection over prefixes that each return one node's
value: that predicate is not monotone (a later node that does not read the lossy one is exact
again), and the bisection stopped past the cause. probes39g zscore_onepass_price, blind:
`var = (x * x).mean() - m * m` on prices near 1000 loses the variance to cancellation (line
11); the verdict sat at the `clamp_min` of line 12 (in Dynamo's graph of it). The second test
fails on the bisection (it found no node at all: the last node is exact); the first holds the
probe's own arithmetic to the subtraction."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.capture.accuracy_compare import Tolerance
from compdiag.capture.accuracy_localise import localise_conditioning

USER = "/home/u/norm.py"


def _normalise(x):
    m = x.mean(dim=1, keepdim=True)
    var = (x * x).mean(dim=1, keepdim=True) - m * m
    return (x - m) / var.clamp_min(1e-6).sqrt()


def _lossy_then_exact(x, y):
    big = x + 1e8
    lost = big - 1e8          # x's low digits are gone in float32
    a = y * 2.0
    b = a + 1.0
    c = b * 3.0
    d = c - 2.0
    e = d * 0.5
    return lost, e


def _traced(fn, *args) -> torch.fx.GraphModule:
    """FN traced, each node's example value and a user line (its position) kept as Dynamo
    keeps them."""
    gm = torch.fx.symbolic_trace(fn)

    class Keep(torch.fx.Interpreter):
        def run_node(self, n):
            n.meta["example_value"] = out = super().run_node(n)
            return out

    for k, n in enumerate(gm.graph.nodes):
        if n.op in ("call_function", "call_method"):
            n.meta["stack_trace"] = (f'  File "{USER}", line {100 + k}, in f\n'
                                     f"    {n.name} = ...\n")
    Keep(gm).run(*args)
    return gm


def test_the_cancellation_not_the_clamp_after_it():
    torch.manual_seed(0)
    x = 1000.0 + torch.cumsum(torch.randn(4, 96) * 0.5, dim=1)
    gm = _traced(_normalise, x)
    node = localise_conditioning(gm, [x], torch.random.get_rng_state(), Tolerance())
    assert node is not None and node["op"] == "sub", node
    sub = next(n for n in gm.graph.nodes if n.name == node["node"])
    assert any(a.op == "call_method" and a.target == "mean" for a in sub.all_input_nodes), node


def test_exact_nodes_after_the_loss_do_not_hide_it():
    torch.manual_seed(1)
    x, y = torch.rand(64), torch.rand(64)
    gm = _traced(_lossy_then_exact, x, y)
    node = localise_conditioning(gm, [x, y], torch.random.get_rng_state(), Tolerance())
    assert node is not None and node["node"] == "sub", node
