import torch
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
N, D, C = 2000, 20, 4
features = torch.randn(N, D)
labels = (features[:, :C].argmax(dim=1))

model = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, C))
params = {k: v.detach() for k, v in model.named_parameters()}


def sample_loss(p, x, y):
    logits = functional_call(model, p, (x.unsqueeze(0),))
    return nn.functional.cross_entropy(logits, y.unsqueeze(0))


@torch.compile
def private_grad(p, xb, yb, clip=1.0, noise_mult=1.1):
    g = vmap(grad(sample_loss), in_dims=(None, 0, 0))(p, xb, yb)
    norms = torch.sqrt(sum(v.flatten(1).pow(2).sum(1) for v in g.values()))
    scale = (clip / (norms + 1e-6)).clamp(max=1.0)
    out = {}
    for k, v in g.items():
        clipped = (v * scale.view(-1, *([1] * (v.dim() - 1)))).sum(0)
        out[k] = (clipped + noise_mult * clip * torch.randn_like(clipped)) / xb.shape[0]
    return out


sample_rate = 0.02
for step in range(12):
    mask = torch.rand(N) < sample_rate
    xb, yb = features[mask], labels[mask]
    g = private_grad(params, xb, yb)
    params = {k: params[k] - 0.5 * g[k] for k in params}
    with torch.no_grad():
        acc = (functional_call(model, params, (features,)).argmax(1) == labels).float().mean()
    print(f"step {step}: batch={xb.shape[0]} acc={acc:.3f}")
