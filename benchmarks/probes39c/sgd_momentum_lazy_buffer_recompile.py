# Hand-written SGD with momentum and decoupled weight decay, compiled.
# Momentum buffers are created lazily on the first step (as torch.optim.SGD does).
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(10, 20), torch.nn.ReLU(), torch.nn.Linear(20, 1))
params = list(model.parameters())
momentum_bufs = [None] * len(params)


@torch.compile
def sgd_step(params, bufs, lr, momentum, weight_decay):
    with torch.no_grad():
        for i, p in enumerate(params):
            g = p.grad
            if bufs[i] is None:
                bufs[i] = g.clone()
            else:
                bufs[i].mul_(momentum).add_(g)
            p.mul_(1 - lr * weight_decay)
            p.add_(bufs[i], alpha=-lr)


x, y = torch.randn(40, 10), torch.randn(40, 1)
for step in range(5):
    model.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    sgd_step(params, momentum_bufs, 0.05, 0.9, 1e-4)
    print(f"step {step} loss {loss.item():.5f}")
print("buf norm", round(sum(b.norm().item() for b in momentum_bufs), 5))
