import math

import torch
from torch import nn
from torch.func import functional_call, grad

torch.manual_seed(0)
INNER_STEPS = 5

net = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))
step_lrs = nn.ParameterList([nn.Parameter(torch.tensor(0.01)) for _ in range(INNER_STEPS)])
meta_opt = torch.optim.Adam(list(net.parameters()) + list(step_lrs.parameters()), lr=1e-3)


def task_loss(p, x, y):
    return nn.functional.mse_loss(functional_call(net, p, (x,)), y)


@torch.compile
def inner_step(p, x, y, step):
    g = grad(task_loss)(p, x, y)
    return {k: p[k] - step_lrs[step] * g[k] for k in p}


def sine_task():
    amp, phase = 0.1 + 4.9 * torch.rand(1), math.pi * torch.rand(1)
    xs = torch.rand(20, 1) * 10 - 5
    return xs[:10], amp * torch.sin(xs[:10] + phase), xs[10:], amp * torch.sin(xs[10:] + phase)


for it in range(4):
    xs, ys, xq, yq = sine_task()
    fast = dict(net.named_parameters())
    for s in range(INNER_STEPS):
        fast = inner_step(fast, xs, ys, s)
    meta_loss = task_loss(fast, xq, yq)
    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
    print(f"meta-iter {it}: query loss {meta_loss.item():.4f}")
