import torch
from torch import nn
from torch.func import vjp

torch.manual_seed(0)

W1 = torch.randn(16, 32) * 0.3
W2 = torch.randn(32, 8) * 0.3


def energy_head(x):
    return torch.tanh(torch.tanh(x @ W1) @ W2)


@torch.compile
def attribution(x, target):
    out, pullback = vjp(energy_head, x)
    residual = out - target
    (grad_x,) = pullback(residual)
    return 0.5 * (residual ** 2).sum(), grad_x


x = torch.randn(4, 16)
target = torch.zeros(4, 8)
for it in range(5):
    loss, g = attribution(x, target)
    x = x - 0.5 * g
    print(f"iter {it}: loss={loss.item():.5f} |grad|={g.norm():.5f}")
