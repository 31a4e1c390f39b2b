import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def mlp(i, h, o):
    return nn.Sequential(nn.Linear(i, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, o))


online = nn.Sequential(mlp(48, 96, 64), mlp(64, 96, 32))
predictor = mlp(32, 64, 32)
target = copy.deepcopy(online).requires_grad_(False)


def regression_loss(p, z):
    return 2 - 2 * (F.normalize(p, dim=-1) * F.normalize(z.detach(), dim=-1)).sum(dim=-1).mean()


@torch.compile
def byol_loss(v1, v2):
    p1, p2 = predictor(online(v1)), predictor(online(v2))
    with torch.no_grad():
        z1, z2 = target(v1), target(v2)
    return regression_loss(p1, z2) + regression_loss(p2, z1)


@torch.compile
@torch.no_grad()
def update_target(tau):
    for p_o, p_t in zip(online.parameters(), target.parameters()):
        p_t.lerp_(p_o, 1.0 - tau)


opt = torch.optim.SGD(list(online.parameters()) + list(predictor.parameters()), lr=0.05, momentum=0.9)
total_steps = 8
for step in range(total_steps):
    x = torch.randn(32, 48)
    loss = byol_loss(x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x))
    opt.zero_grad()
    loss.backward()
    opt.step()
    tau = 1 - (1 - 0.99) * (math.cos(math.pi * step / total_steps) + 1) / 2
    update_target(torch.tensor(tau))
    print(f"step {step} loss {loss.item():.4f} tau {tau:.4f}")
