"""A graph that draws random numbers gets no float64 reference (capture/random_ops.py): in
float64 it would draw other numbers, and every verdict measured against it would be about
that. probes33a dense_top2_moe_ok: a router's `uniform_` jitter; eager and compiled agreed to
1.2e-7, yet both were "far from the float64 reference", an ill-conditioned problem on a
correct program."""

from __future__ import annotations

import torch
import torch.fx
import torch.nn.functional as F

from compdiag.capture.accuracy import check_graph
from compdiag.capture.accuracy_compare import Tolerance
from compdiag.capture.random_ops import draws_random


def _jitter(x):
    x = x * torch.empty_like(x).uniform_(0.9, 1.1)
    p = x.softmax(-1)
    return p / p.sum(-1, keepdim=True)


def test_what_draws_random_numbers():
    assert draws_random(torch.fx.symbolic_trace(_jitter))
    assert draws_random(torch.fx.symbolic_trace(lambda x: F.dropout(x, 0.1) + torch.rand(3)))
    assert not draws_random(torch.fx.symbolic_trace(lambda x: (x * 2).softmax(-1)))
    g = torch.fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_function(torch.ops.aten.uniform.default, (x, 0.0, 1.0)))
    assert draws_random(torch.fx.GraphModule(torch.nn.Module(), g))


def test_a_random_graph_is_judged_against_eager_only():
    gm = torch.fx.symbolic_trace(_jitter)
    x = torch.randn(64, 8)
    rng = torch.random.get_rng_state()
    out = gm(x)  # "compiled": eager itself, from the same generator state
    check = check_graph(gm, out, [x], rng, Tolerance(rtol=1e-4, atol=1e-4), "0/0")
    assert check.ok, check.outputs
    assert all("fp64" not in o.detail and not o.detail.get("verdict") for o in check.outputs), \
        [o.detail for o in check.outputs]
