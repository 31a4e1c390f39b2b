"""Graph break: an op whose output shape depends on the data (nonzero)."""
import torch


def positives_mean(x):
    idx = torch.nonzero(x > 0)  # <- diagnosis
    return x[idx].mean()


torch.compile(positives_mean, backend="eager")(torch.randn(16))
print("ok")
