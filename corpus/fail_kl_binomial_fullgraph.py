# after pytorch/pytorch#194593: [torch.compile] kl_divergence(Binomial, Binomial) fails with tensor total_count under fullgraph=True
"""Failure (dynamo) raised inside torch.distributions: the KL between two Binomials checks
`total_count` with a Python comparison on tensors, a data-dependent branch fullgraph=True
cannot break at. The user's line is the kl_divergence call, not the compiled function's def
or torch's frames below it."""
import torch
from torch.distributions import Binomial, kl_divergence


@torch.compile(fullgraph=True, backend="eager")
def kl(n, p, q):
    return kl_divergence(Binomial(n, probs=p), Binomial(n, probs=q))  # <- diagnosis


kl(torch.tensor(10.0), torch.tensor(0.3), torch.tensor(0.6))
print("ok")
