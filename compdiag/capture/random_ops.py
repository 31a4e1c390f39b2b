"""What draws random numbers, by the name a program or a graph calls it by: the names whose
use makes a replay differ by design (function_accuracy's replays), and the graphs whose float64
reference would draw other numbers than eager did (accuracy.check_graph). probes33a
dense_top2_moe_ok: a router's `torch.empty_like(x).uniform_(...)` jitter drew other values
in float64, so eager and compiled, equal to 1.2e-7, were both "far from the float64
reference": an ill-conditioned verdict on a correct program."""

from __future__ import annotations

import torch.fx

# (RANDOM is read from here by function_accuracy)
from compdiag.formats.random_names import RANDOM, traced_random


def draws_random(gm: torch.fx.GraphModule) -> bool:
    """Whether a graph calls anything that draws random numbers (a function, a method or an
    op, whatever its overload)."""
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method", "call_module"):
            continue
        target = node.target
        if node.op == "call_module":
            target = type(gm.get_submodule(str(target))).__name__
        name = target if isinstance(target, str) else getattr(target, "__name__", str(target))
        parts = str(name).split(".")
        if parts[-1] in RANDOM or traced_random(str(name)):
            return True
    return False
