"""pytorch/pytorch#133898: recompilation of AdamW with OneCycleLR: the scheduler changes the
betas (Python floats) every step, so the compiled step recompiles every step (CPU here; the
issue used CUDA and 10000 steps)."""
import torch

param = torch.rand(2, 3, dtype=torch.float, requires_grad=True)
param.grad = torch.rand_like(param)

lr = torch.tensor(0.001)
total_steps = 12
optimizer = torch.optim.AdamW([param], lr=lr)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=total_steps)


@torch.compile(backend="eager")
def step():
    optimizer.step()
    scheduler.step()


for _ in range(total_steps - 1):
    step()
