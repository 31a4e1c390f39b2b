# Nearest-neighbour retrieval in a Poincare-ball embedding (Nickel & Kiela 2017 init:
# uniform(-1e-3, 1e-3)). The hyperbolic distance is 2 * atanh(|(-x) (+) y|).
# Inductor's vectorized C++ kernel computes atanh(z) as 0.5 * log((1 + z) / (1 - z)),
# which cancels catastrophically for small z: distances between nearby points get
# relative errors up to ~1e-4 (and atanh(z) -> 0 for z < 3e-8), so the compiled top-k
# neighbours differ from eager's, while eager (std::atanh) matches a float64 reference.
import torch

torch.manual_seed(0)


def mobius_add(x, y):
    xy = (x * y).sum(-1, keepdim=True)
    x2 = (x * x).sum(-1, keepdim=True)
    y2 = (y * y).sum(-1, keepdim=True)
    num = (1 + 2 * xy + y2) * x + (1 - x2) * y
    return num / (1 + 2 * xy + x2 * y2).clamp_min(1e-15)


def poincare_dist(x, y):
    z = mobius_add(-x, y).norm(dim=-1).clamp(max=1 - 1e-5)
    return (torch.log1p(z) - torch.log1p(-z))  # fix: 2*atanh(z) without cancellation


@torch.compile
def knn(queries, table, k: int):
    d = poincare_dist(queries[:, None, :], table[None, :, :])
    return d.topk(k, dim=1, largest=False)


emb = torch.empty(5000, 10).uniform_(-1e-3, 1e-3)
queries = emb[:64]
res = knn(queries, emb, 10)
print("first query neighbours:", res.indices[0].tolist())
print("first query distances:", [f"{v:.7g}" for v in res.values[0].tolist()])
print("order-sensitive neighbour checksum:", int((res.indices * torch.arange(1, 11)).sum()))
