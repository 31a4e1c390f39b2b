"""What draws random numbers, by the name a program or a graph calls it by: the names whose
use makes a replay differ by design (function_accuracy's replays), and the graphs whose float64
reference would draw other numbers than eager did (accuracy.check_graph). probes33a
dense_top2_moe_ok: a router's `torch.empty_like(x).uniform_(...)` jitter drew other values
in float64, so eager and compiled, equal to 1.2e-7, were both "far from the float64
reference": an ill-conditioned verdict on a correct program."""

from __future__ import annotations

import torch.fx

# Names whose use draws random numbers (torch.rand, F.dropout, x.bernoulli_, ...): compiled
# code draws its own, so the results would differ by design.
RANDOM = frozenset({"rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                    "randint_like", "bernoulli", "bernoulli_", "multinomial", "normal",
                    "normal_", "uniform_", "exponential_", "geometric_", "cauchy_",
                    "log_normal_", "random_", "dropout", "dropout1d", "dropout2d",
                    "dropout3d", "alpha_dropout", "feature_alpha_dropout", "rrelu", "Dropout",
                    "poisson", "gumbel_softmax",
                    # Python's and numpy's: a replay would move the program's own stream
                    "random", "choice", "choices", "shuffle", "sample", "gauss", "uniform",
                    "randrange", "getrandbits", "permutation", "default_rng"})
# the same draws as aten and Inductor name them in a traced graph (`aten.uniform.default`)
_TRACED = frozenset({"uniform", "bernoulli", "normal", "exponential", "geometric", "cauchy",
                     "log_normal", "random", "rand", "randn", "randint", "randperm",
                     "multinomial", "native_dropout", "inductor_random", "inductor_randint",
                     "rand_like", "randn_like", "randint_like", "poisson", "rrelu_with_noise"})


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
        if parts[-1] in RANDOM or any(p.rstrip("_") in _TRACED for p in parts):
            return True
    return False
