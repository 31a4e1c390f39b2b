"""Graph break: loss.backward() inside the compiled function."""
import torch

w = torch.randn(4, requires_grad=True)


def train_step(x):
    loss = (x * w).sum()
    loss.backward()  # <- diagnosis
    return loss


torch.compile(train_step, backend="eager")(torch.randn(4))
print("ok")
