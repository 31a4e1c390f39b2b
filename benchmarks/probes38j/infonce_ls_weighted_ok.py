# Two losses trained together, compiled: a supervised InfoNCE written with logsumexp and
# a classification head with class weights, label smoothing and ignore_index (padding -100).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16))
head = nn.Linear(16, 4)
opt = torch.optim.SGD(list(enc.parameters()) + list(head.parameters()), lr=0.05)
class_w = torch.tensor([1.0, 2.0, 0.5, 1.5])


def losses(x1, x2, y, tau: float = 0.2):
    z1 = F.normalize(enc(x1), dim=1)
    z2 = F.normalize(enc(x2), dim=1)
    sim = z1 @ z2.t() / tau
    log_prob = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    info_nce = -log_prob.diagonal().mean()
    valid = y != -100
    ce = F.cross_entropy(head(z1), y, weight=class_w, label_smoothing=0.1, ignore_index=-100)
    acc = ((head(z1).argmax(1) == y) & valid).sum() / valid.sum().clamp(min=1)
    return info_nce + ce, info_nce.detach(), ce.detach(), acc


step = torch.compile(losses)
x = torch.randn(12, 10)
y = torch.randint(0, 4, (12,))
y[[3, 7]] = -100
for it in range(4):
    opt.zero_grad()
    total, nce, ce, acc = step(x + 0.05 * torch.randn_like(x), x + 0.05 * torch.randn_like(x), y)
    total.backward()
    opt.step()
    print(f"it {it} infonce {nce.item():.4f} ce {ce.item():.4f} acc {acc.item():.3f}")
