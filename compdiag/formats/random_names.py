"""The names that draw random numbers: as a program calls them (`torch.rand`, `F.dropout`,
`x.bernoulli_`, Python's and NumPy's own) and as aten and Inductor name them in a traced graph
(`aten.uniform.default`, `prims.inductor_random.default`). One list for capture (a graph or a
replay that draws its own numbers, capture/random_ops.py) and for the analyses that read a
stored graph's targets or a user line (the memoised kind)."""

from __future__ import annotations

import re

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
TRACED = frozenset({"uniform", "bernoulli", "normal", "exponential", "geometric", "cauchy",
                    "log_normal", "random", "rand", "randn", "randint", "randperm",
                    "multinomial", "native_dropout", "inductor_random", "inductor_randint",
                    "rand_like", "randn_like", "randint_like", "poisson", "rrelu_with_noise"})


def traced_random(target: str) -> bool:
    """Whether a traced graph's target (`aten.normal_.default`, `prims.inductor_random.
    default`) draws random numbers, whatever its overload or in-place form."""
    return any(p.rstrip("_") in TRACED for p in str(target).split("."))


_CALLED = re.compile(r"\b(\w+)\s*\(")


def random_calls(line: str | None) -> int:
    """How many calls of a random-drawing name a line of code makes (`w = torch.randn(d, n)`:
    1)."""
    return sum(1 for name in _CALLED.findall(line or "") if name in RANDOM)
