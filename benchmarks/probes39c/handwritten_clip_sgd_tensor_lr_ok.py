# Hand-written global-norm clipping + SGD with Nesterov momentum and per-group
# weight decay, compiled as one update function. Buffers are allocated up
# front and lr / weight decay are 0-dim tensors updated in place, so the
# compiled update is reused across the warmup + cosine schedule.
import math
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.SiLU(), torch.nn.Linear(32, 1))
params = list(model.parameters())
bufs = [torch.zeros_like(p) for p in params]
wds = [torch.tensor(1e-3 if p.dim() > 1 else 0.0) for p in params]
lr = torch.tensor(0.0)


@torch.compile
def update(params, bufs, wds, lr, max_norm: float = 1.0, momentum: float = 0.9):
    with torch.no_grad():
        grads = [p.grad for p in params]
        norm = torch.sqrt(sum((g * g).sum() for g in grads))
        coef = torch.clamp(max_norm / (norm + 1e-6), max=1.0)
        for p, g, b, wd in zip(params, grads, bufs, wds):
            g = g * coef + wd * p
            b.mul_(momentum).add_(g)
            p.sub_(lr * (g + momentum * b))
    return norm


x, y = torch.randn(64, 12), torch.randn(64, 1)
WARMUP, TOTAL = 2, 8
for step in range(TOTAL):
    lr.fill_(0.05 * min(1.0, (step + 1) / WARMUP) * 0.5 * (1 + math.cos(math.pi * step / TOTAL)))
    model.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    norm = update(params, bufs, wds, lr)
    print(f"step {step} loss {loss.item():.5f} grad_norm {norm.item():.5f} lr {lr.item():.5f}")
print("param sum", round(sum(p.sum().item() for p in params), 5))
