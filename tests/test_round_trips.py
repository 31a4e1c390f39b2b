"""A cast down to float16/bfloat16 and straight back, which Inductor leaves out unless
emulate_precision_casts is on (capture/round_trips.py). The end-to-end case is the corpus's
acc_fp16_round_trip.py; these test the rule on Dynamo's own graphs (a capturing backend, no
Inductor compile) and the check's verdict on compiled values given to it.

Caught on the code before: probes33f bf16_rounding_sim (a module rounding activations with
`x.to(torch.bfloat16).to(torch.float32)`) was said to be "what Dynamo traced differs from the
code" at the module's output line, because the graph was judged at bfloat16's tolerance and the
function at float32's; the float16 round trip of acc_fp16_round_trip.py was said to be
"compiled is closer to the float64 reference than eager, not a compiler bug"."""

from __future__ import annotations

import torch

from compdiag.capture.accuracy import check_graph
from compdiag.capture.accuracy_compare import Tolerance
from compdiag.capture.round_trips import round_trips


def _graph(fn, *args):
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.compile(fn, backend=keep, fullgraph=True)(*args)
    assert len(graphs) == 1
    return graphs[0]


def _trip_ops(fn, *args):
    return [(n.op, str(n.target)) for n in round_trips(_graph(fn, *args))]


X = torch.randn(8, 16)
W = torch.randn(16, 4)
B = torch.randn(4)


def test_round_trips_are_casts_down_taken_straight_back_up():
    assert _trip_ops(lambda x: x.to(torch.bfloat16).to(torch.float32), X) == \
        [("call_method", "to")]
    assert _trip_ops(lambda x: x.half().float() * 2, X) == [("call_method", "half")]
    # promoted back by an op with a float32 operand (pytorch#181568)
    assert _trip_ops(lambda x, w, b: (x @ w).to(torch.bfloat16) + b, X, W, B) == \
        [("call_method", "to")]


def test_low_precision_arithmetic_is_not_a_round_trip():
    # a matmul in bfloat16 rounds in compiled code too; an upcast inside a bfloat16 model,
    # and a cast down that is returned as it is, are no round trip
    assert _trip_ops(lambda x, w: (x.bfloat16() @ w.bfloat16()).float(), X, W) == []
    assert _trip_ops(lambda x: x.float().pow(2).mean(-1).to(torch.bfloat16),
                     X.bfloat16()) == []
    assert _trip_ops(lambda x: x.to(torch.float16), X) == []


def _check(fn, compiled_out, *args):
    gm = _graph(fn, *args)
    return check_graph(gm, compiled_out, list(args), torch.random.get_rng_state(),
                       Tolerance(), "0/0")


def _sim(x):
    return torch.tanh(x.to(torch.bfloat16).to(torch.float32) * 3.0).sum(-1)


def test_the_unrounded_value_is_the_dropped_rounding_at_the_cast_down():
    x = torch.randn(64, 32)
    check = _check(_sim, torch.tanh(x * 3.0).sum(-1), x)  # what Inductor computes
    (out,) = check.outputs
    assert not out.ok and out.detail["verdict"] == "dropped_rounding", out.detail
    assert out.detail["rounded_to"] == "bfloat16" and "float32's tolerance" in \
        out.detail["reason"]
    assert check.divergent_node["op"] == "to", check.divergent_node
    assert check.divergent_node["user_frame"]["line"].startswith("return torch.tanh(x.to(")


def test_a_rounded_result_or_another_difference_is_not_dropped_rounding():
    x = torch.randn(64, 32)
    same = _check(_sim, _sim(x), x)
    assert same.ok and not any(o.detail.get("verdict") for o in same.outputs)
    # a result wrong some other way is not nearer the unrounded value than eager
    wrong = _check(_sim, _sim(x) + 0.5, x)
    assert not wrong.ok and wrong.outputs[0].detail.get("verdict") != "dropped_rounding"
