# A hand-written AdamW (bias correction as in the paper) whose step is compiled.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class MyAdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        for group in self.param_groups:
            for p in group["params"]:
                # step kept as a tensor, like torch.optim.AdamW does
                self.state[p] = dict(step=torch.tensor(0.0), m=torch.zeros_like(p), v=torch.zeros_like(p))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                st["step"] += 1
                st["m"].lerp_(p.grad, 1 - beta1)
                st["v"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                bc1 = 1 - beta1 ** st["step"]
                bc2 = 1 - beta2 ** st["step"]
                step_size = group["lr"] * bc2.sqrt() / bc1
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.addcdiv_(st["m"], st["v"].sqrt().add_(group["eps"]), value=-step_size)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
opt = MyAdamW(model.parameters(), lr=1e-2)
step_fn = torch.compile(opt.step)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for it in range(6):
    loss = F.mse_loss(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    step_fn()
    print(f"step {it} loss {loss.item():.5f}")
