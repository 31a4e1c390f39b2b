# Hand-written warmup + cosine LR schedule inside a compiled SGD update.
# The step counter is kept as a tensor (to avoid a recompile per step), and the
# schedule is written with math.cos as in the usual recipes.
import math
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
params = list(model.parameters())
BASE_LR, WARMUP, TOTAL = 0.1, 2, 8


@torch.compile
def sgd_update(params, step):
    warm = torch.clamp((step + 1) / WARMUP, max=1.0)
    progress = torch.clamp((step - WARMUP) / (TOTAL - WARMUP), min=0.0)
    lr = BASE_LR * warm * 0.5 * (1.0 + math.cos(math.pi * progress))
    with torch.no_grad():
        for p in params:
            p.sub_(lr * p.grad)
    step += 1
    return lr


step = torch.zeros(())
x, y = torch.randn(64, 16), torch.randn(64, 1)
for it in range(TOTAL):
    model.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    lr = sgd_update(params, step)
    print(f"step {it} loss {loss.item():.5f} lr {float(lr):.5f}")
