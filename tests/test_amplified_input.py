"""An error a periodic op makes of its argument's rounding is found where the argument was
rounded (accuracy_localise._amplified_input). probes38a temb_fp16_sinusoidal, blind: a
timestep embedding computes `args = t[:, None] * freqs` in float16 (t up to 999, where
float16's spacing is 0.5), then cos and sin; the "compiled is closer to float64" verdict sat
at the cos line (15), and the line that loses the precision is the product's (14)."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.capture.accuracy_compare import Tolerance
from compdiag.capture.accuracy_localise import localise_conditioning

USER = "/home/u/temb.py"


def _embed(t, freqs):
    args = t * freqs
    return torch.cos(args)


def _traced(lines: dict[str, int], *args) -> torch.fx.GraphModule:
    """_embed traced, each node's example value and its user line kept as Dynamo keeps them."""
    gm = torch.fx.symbolic_trace(_embed)

    class Keep(torch.fx.Interpreter):
        def run_node(self, n):
            n.meta["example_value"] = out = super().run_node(n)
            return out

    for n in gm.graph.nodes:
        if n.op == "call_function":
            n.meta["stack_trace"] = (f'  File "{USER}", line {lines[n.name]}, in _embed\n'
                                     f"    {n.name} = ...\n")
    Keep(gm).run(*args)
    return gm


def test_the_rounded_argument_of_a_cos_is_the_line():
    t = torch.tensor([999.0, 731.0, 402.0, 57.0], dtype=torch.float16)
    freqs = torch.tensor([1.0, 0.73, 0.31, 0.11], dtype=torch.float16)
    gm = _traced({"mul": 14, "cos": 15}, t, freqs)
    node = localise_conditioning(gm, [t, freqs], torch.random.get_rng_state(), Tolerance())
    assert node is not None and node["op"] == "mul", node
    assert node["user_frame"]["lineno"] == 14 and node["amplified_by"] == "cos", node


def test_a_cos_on_its_own_line_with_its_argument_is_the_cos():
    t = torch.tensor([999.0, 731.0, 402.0, 57.0], dtype=torch.float16)
    freqs = torch.tensor([1.0, 0.73, 0.31, 0.11], dtype=torch.float16)
    gm = _traced({"mul": 15, "cos": 15}, t, freqs)
    node = localise_conditioning(gm, [t, freqs], torch.random.get_rng_state(), Tolerance())
    assert node is not None and node["op"] == "cos" and "amplified_by" not in node, node
