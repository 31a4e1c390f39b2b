# Gradient compression for a simulated data-parallel step: each worker's gradient
# is stochastically rounded to int8 levels (unbiased), averaged, and applied.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@torch.compile
def compress(grad):
    scale = grad.abs().amax().clamp_min(1e-12) / 127
    scaled = grad / scale
    low = torch.floor(scaled)
    q = low + (torch.rand_like(scaled) < (scaled - low)).to(scaled.dtype)
    return q.clamp(-127, 127).to(torch.int8), scale


model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(800, 10)
y = x[:, :2].sum(1, keepdim=True)
shards = list(zip(x.chunk(4), y.chunk(4)))
for step in range(25):
    summed = [torch.zeros_like(p) for p in model.parameters()]
    for xs, ys in shards:
        grads = torch.autograd.grad(F.mse_loss(model(xs), ys), list(model.parameters()))
        q, scale = compress(torch.cat([g.flatten() for g in grads]))
        flat = q.to(torch.float32) * scale
        for acc, g in zip(summed, flat.split([p.numel() for p in model.parameters()])):
            acc += g.view_as(acc)
    for p, acc in zip(model.parameters(), summed):
        p.grad = acc / len(shards)
    opt.step()
    if step % 8 == 0 or step == 24:
        with torch.no_grad():
            print(f"step {step:2d}  full-batch loss {F.mse_loss(model(x), y).item():.3f}")
