"""Small compiled helpers in several styles: a compiled function calling another compiled
function, keyword-only arguments, an in-place clip that returns None, a function over an
iterable of tensors (called with a generator), and int/bool-valued results."""
import torch

torch.manual_seed(0)
W = torch.randn(32, 32) / 6


@torch.compile
def rms_norm(x, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


@torch.compile
def block(x, *, residual=True):
    y = rms_norm(x) @ W
    return x + y if residual else y


@torch.compile
def clip_(x, limit):
    x.clamp_(-limit, limit)


@torch.compile
def total_energy(tensors):
    return sum(t.pow(2).sum() for t in tensors)


@torch.compile
def summary(x):
    return {"rows": x.shape[0], "finite": torch.isfinite(x).all(), "peak": x.abs().amax()}


x = torch.randn(8, 32)
h = block(x)
h2 = block(h, residual=False)
clip_(h2, 1.0)
chunks = h2.split(2)
e = total_energy(c for c in chunks)
s = summary(h2)
print("block:", round(h.sum().item(), 4), "no-residual:", round(h2.sum().item(), 4))
print("energy:", round(float(e), 4))
print("summary:", s["rows"], bool(s["finite"]), round(s["peak"].item(), 4))
