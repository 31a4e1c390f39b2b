# Linear LR warmup read from Python state inside a compiled SGD update; the scale
# function is marked assume_constant_result to avoid a recompile per step.
import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 5
state = {"step": 0}


@torch.compiler.assume_constant_result
def lr_scale():
    return 0.2


def sgd_update(params, grads, lr):
    s = lr_scale()
    for p, g in zip(params, grads):
        p.sub_(g * (lr * s))


def train(update_fn):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    state["step"] = 0
    for it in range(8):
        loss = F.mse_loss(model(x), y)
        grads = torch.autograd.grad(loss, list(model.parameters()))
        with torch.no_grad():
            update_fn(list(model.parameters()), grads, 0.1)
        state["step"] += 1
    return loss.item()


print(f"eager    final loss {train(sgd_update):.6f}")
print(f"compiled final loss {train(torch.compile(sgd_update)):.6f}")
