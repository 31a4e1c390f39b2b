# Lion (Chen et al. 2023) as a torch.optim.Optimizer subclass, its step compiled; lr is a
# tensor that a Python warmup+cosine schedule updates in place with fill_().
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr, betas=(0.9, 0.99), weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["exp_avg"] = torch.zeros_like(p)

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            lr, wd = group["lr"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                exp_avg = self.state[p]["exp_avg"]
                p.mul_(1 - lr * wd)
                update = exp_avg.mul(beta1).add_(p.grad, alpha=1 - beta1).sign_()
                p.add_(update * -lr)
                exp_avg.lerp_(p.grad, 1 - beta2)


def lr_at(it, base=3e-3, warmup=3, total=12):
    if it < warmup:
        return base * (it + 1) / warmup
    return base * 0.5 * (1 + math.cos(math.pi * (it - warmup) / (total - warmup)))


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
decay = [p for p in model.parameters() if p.ndim > 1]
no_decay = [p for p in model.parameters() if p.ndim <= 1]
lr_t = torch.tensor(lr_at(0))
opt = Lion([dict(params=decay, weight_decay=0.1), dict(params=no_decay, weight_decay=0.0)], lr=lr_t)
step_fn = torch.compile(opt.step)
x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
for it in range(12):
    lr_t.fill_(lr_at(it))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    step_fn()
    print(f"it {it:2d} lr {lr_t.item():.6f} loss {loss.item():.5f}")
