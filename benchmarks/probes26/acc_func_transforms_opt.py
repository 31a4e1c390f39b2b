"""torch.func inside compiled functions, used correctly: per-sample gradients (vmap of grad)
of a loss that closes over a tensor, a directional derivative (jvp), and an optimizer
step compiled on its own, as the torch.compile optimizer tutorial does."""
import torch
from torch.func import grad, jvp, vmap

torch.manual_seed(0)
D = 6
reg = torch.full((D,), 0.01)


def sample_loss(w, x, y):
    return (torch.tanh(x @ w) - y) ** 2 + (reg * w * w).sum()


@torch.compile
def per_sample_grads(w, xs, ys):
    return vmap(grad(sample_loss), in_dims=(None, 0, 0))(w, xs, ys)


@torch.compile
def directional(w, x, y, v):
    zx, zy = torch.zeros_like(x), torch.zeros_like(y)
    return jvp(sample_loss, (w, x, y), (v, zx, zy))[1]


w = torch.nn.Parameter(torch.randn(D) * 0.1)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)


@torch.compile
def opt_step():
    opt.step()


xs, ys = torch.randn(16, D), torch.randn(16)
for step in range(3):
    g = per_sample_grads(w.detach(), xs, ys)
    w.grad = g.mean(0)
    opt_step()
    print(f"step {step}: grad norm {g.mean(0).norm().item():.5f} w[0] {w[0].item():.5f}")
d = directional(w.detach(), xs[0], ys[0], torch.ones(D))
print("directional derivative:", round(d.item(), 5))
