# after pytorch/pytorch#185246: torch.compile silently accepts invalid Bernoulli probabilities that eager mode rejects
"""Accuracy, eager rejects what compiled accepts: bernoulli with a probability of 1.5. Eager
checks `0 <= p <= 1` and raises; Inductor draws `rand < p` and returns ones. Run with
--check-accuracy."""
import torch


def dropout_mask(p):
    return torch.bernoulli(p)  # <- diagnosis


print(torch.compile(dropout_mask)(torch.full((4,), 1.5)))
