# Gradient accumulation with a Python counter (4 micro-batches per update), a compiled
# model, and a compiled update: global-norm clipping, then SGD with momentum and weight
# decay on matrices only (a list of per-parameter decay flags).
import torch
import torch.nn as nn
import torch.nn.functional as F

ACCUM = 4
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 1))
cmodel = torch.compile(model)
params = list(model.parameters())
decay_flags = [p.ndim > 1 for p in params]
bufs = [torch.zeros_like(p) for p in params]
lr_t = torch.tensor(0.05)


@torch.compile
def clip_and_step(params, bufs, lr):
    total = torch.nn.utils.clip_grad_norm_(params, max_norm=0.5)
    for p, buf, decay in zip(params, bufs, decay_flags):
        g = p.grad.add(p, alpha=1e-2) if decay else p.grad
        buf.mul_(0.9).add_(g)
        p.sub_(lr * buf)
    return total


data = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(8)]
micro = 0
for it in range(24):
    x, y = data[it % len(data)]
    loss = F.mse_loss(cmodel(x), y) / ACCUM
    loss.backward()
    micro += 1
    if micro % ACCUM == 0:
        with torch.no_grad():
            norm = clip_and_step(params, bufs, lr_t)
        model.zero_grad(set_to_none=True)
        lr_t.mul_(0.9)
        print(f"update {micro // ACCUM} grad norm {norm.item():.5f} loss {loss.item() * ACCUM:.5f}")
