import torch
from torch import nn
from torch.func import functional_call, jvp, vjp

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
names = [n for n, _ in model.named_parameters()]
X = torch.randn(128, 3)
Y = torch.stack([X[:, 0] * X[:, 1], torch.sin(X[:, 2])], dim=1)


def predict(*flat):
    return functional_call(model, dict(zip(names, flat)), (X,))


@torch.compile
def gn_vector_product(flat, vec, damping=1e-3):
    _, jv = jvp(predict, flat, vec)
    _, pullback = vjp(predict, *flat)
    jtjv = pullback(jv)
    return tuple(a / X.shape[0] + damping * v for a, v in zip(jtjv, vec))


def dot(a, b):
    return sum((x * y).sum() for x, y in zip(a, b))


flat = tuple(p.detach() for p in model.parameters())
for it in range(4):
    out, pullback = vjp(predict, *flat)
    g = tuple(t / X.shape[0] for t in pullback(out - Y))
    d = tuple(torch.zeros_like(t) for t in g)
    r = tuple(-t for t in g)
    s = r
    for _ in range(5):
        As = gn_vector_product(flat, s)
        alpha = dot(r, r) / dot(s, As)
        d = tuple(di + alpha * si for di, si in zip(d, s))
        r_new = tuple(ri - alpha * ai for ri, ai in zip(r, As))
        beta = dot(r_new, r_new) / dot(r, r)
        s = tuple(rn + beta * si for rn, si in zip(r_new, s))
        r = r_new
    flat = tuple(p + di for p, di in zip(flat, d))
    print(f"GN iter {it}: mse {((predict(*flat) - Y) ** 2).mean():.5f}")
