# Functional training step with torch.func: the loss is written with
# functional_call, compiled, and differentiated with torch.func.grad.
import torch
import torch.nn as nn
from torch.func import functional_call, grad

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 1))
params = {k: v.detach().clone() for k, v in model.named_parameters()}


def loss_fn(p, x, y):
    pred = functional_call(model, p, (x,))
    return nn.functional.mse_loss(pred, y)


compiled_loss = loss_fn
grad_fn = torch.compile(grad(loss_fn))

x = torch.randn(64, 10)
y = x[:, :1] * 2.0 - x[:, 1:2]
lr = 0.05
for step in range(4):
    g = grad_fn(params, x, y)
    params = {k: v - lr * g[k] for k, v in params.items()}
    with torch.no_grad():
        print(f"step {step} loss {loss_fn(params, x, y).item():.4f}")
