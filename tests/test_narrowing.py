"""A float converted to an integer dtype outside its range, at the first divergent node, is
said as that (capture/narrowing.py, analyses/narrowing_words.py). probes32f
int8_weight_only_linear: `round(w / scale).to(torch.int8)` with a scale that maps each row's
maximum to 128; eager wraps it to -128, Inductor's kernel saturates to 127. Before this test
the reason was "compiled 1.74e+06x further from the float64 reference than eager; first
divergent node w_q (to)" with a bisect fix, and int8's range was never named."""

from __future__ import annotations

import torch

from compdiag.analyses.narrowing_words import narrowing_words
from compdiag.capture.narrowing import integer_target, narrowing, out_of_range
from test_explain import Store


def _quantise(w: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    w_q = torch.round(w / scale).to(torch.int8)
    return w_q.float() * scale


def _values(gm: torch.fx.GraphModule, *args: torch.Tensor):
    seen: dict = {}

    class Keep(torch.fx.Interpreter):
        def run_node(self, n):
            seen[n.name] = out = super().run_node(n)
            return out

    return lambda: (Keep(gm).run(*args), seen)[1]


def test_a_conversion_to_int8_past_its_range_is_found_at_its_node():
    gm = torch.fx.symbolic_trace(_quantise)
    (to,) = [n for n in gm.graph.nodes if integer_target(n) is not None]
    w = torch.tensor([[1.0, -2.0, 4.0]])
    scale = w.abs().amax(dim=1, keepdim=True) / 128  # 4.0 maps to 128: one past int8's max
    got = narrowing(gm, to.name, _values(gm, w, scale))
    assert got is not None and got["dtype"] == "int8" and got["range"] == [-128, 127], got
    assert got["count"] == 1 and got["max"] == 128.0, got
    # scaled to 127 every value fits: nothing to say
    assert narrowing(gm, to.name, _values(gm, w, w.abs().amax(dim=1, keepdim=True) / 127)) \
        is None


def test_only_float_to_integer_conversions_count():
    assert out_of_range(torch.int8, torch.tensor([1, 300])) is None  # an integer source
    assert out_of_range(torch.uint8, torch.tensor([-1.0, float("nan")]))["count"] == 2
    gm = torch.fx.symbolic_trace(lambda x: x.to(torch.float16) + x.to(torch.bool).float())
    assert all(integer_target(n) is None for n in gm.graph.nodes)


def test_the_diagnosis_names_the_range_and_the_fix_clamps(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    node = {"node": "w_q", "op": "to", "compiles": 7,
            "user_frame": {"filename": str(s.user), "lineno": 19, "line": "line_19 = 19"},
            "narrowing": {"dtype": "int8", "range": [-128, 127], "count": 128, "of": 8192,
                          "min": -128.0, "max": 128.0}}
    s.accuracy("0/0", [("output 0", False, 5.5, 479.0, {
        "dtype": "torch.float32", "verdict": "miscompile", "tol": 1e-4,
        "fp64": {"eager_rel": 1.75e-07, "compiled_rel": 0.304}})], node=node)
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert d["user_frame"]["lineno"] == 19, d["user_frame"]
    assert "outside int8's range -128..127" in d["reason"], d["reason"]
    assert ".clamp(-128, 127).to(torch.int8)" in d["fix"] and "bisect" not in d["fix"], d["fix"]
    assert "wraps" in d["explanation"], d["explanation"]


def test_no_narrowing_no_words():
    assert narrowing_words({"node": "x", "op": "to"}) is None
