"""pytorch/pytorch#189787 ("Inductor constant-folds `sum(softmax)` to exactly 1.0, causing
`floor()` to produce wrong integer results", open): in eager the softmax's row sum is a float a
few ulps below 1.0 for many rows, so floor() of it gives 0; Inductor folds the sum of a softmax
to exactly 1.0 and floor() gives 1. Here: a router that turns each token's total routing mass
into a whole number of expert slots."""
import torch

torch.manual_seed(0)


def slots_per_token(router_logits, slots):
    return torch.floor(torch.softmax(router_logits, dim=-1).sum(dim=-1) * slots)


router_logits = torch.randn(64, 33)
slots = torch.compile(slots_per_token)(router_logits, 1)
print("tokens with a slot:", int(slots.sum()), "of", slots.numel())
