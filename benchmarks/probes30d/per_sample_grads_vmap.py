import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))

    def forward(self, x):
        return self.net(x)


model = torch.compile(Classifier())
params = {k: v.detach() for k, v in model.named_parameters()}
max_grad_norm, noise_mult, lr = 1.0, 0.5, 0.1


def sample_loss(p, x, y):
    logits = functional_call(model, p, (x.unsqueeze(0),))
    return nn.functional.cross_entropy(logits, y.unsqueeze(0))


per_sample_grad = vmap(grad(sample_loss), in_dims=(None, 0, 0))

X = torch.randn(256, 20)
Y = (X[:, 0] > 0).long() + (X[:, 1] > 0).long()
for step in range(6):
    idx = torch.randint(0, 256, (32,))
    grads = per_sample_grad(params, X[idx], Y[idx])
    norms = torch.sqrt(sum(g.flatten(1).pow(2).sum(1) for g in grads.values()))
    scale = (max_grad_norm / (norms + 1e-6)).clamp(max=1.0)
    for k in params:
        clipped = (grads[k] * scale.view(-1, *[1] * (grads[k].dim() - 1))).sum(0)
        noisy = clipped + noise_mult * max_grad_norm * torch.randn_like(clipped)
        params[k] = params[k] - lr * noisy / len(idx)
    with torch.no_grad():
        acc = (functional_call(model, params, (X,)).argmax(1) == Y).float().mean()
    print(f"step {step} median per-sample norm {norms.median():.3f} acc {acc:.3f}")
