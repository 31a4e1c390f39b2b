"""Graph break: iterating over .tolist() of a float tensor."""
import torch


def weighted(x, w):
    total = torch.zeros(())
    for i, wi in enumerate(w.tolist()):  # <- diagnosis
        total = total + x[i] * wi
    return total


torch.compile(weighted, backend="eager")(torch.randn(4), torch.rand(4))
print("ok")
