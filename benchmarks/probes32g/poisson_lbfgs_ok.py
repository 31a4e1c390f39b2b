import math
import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)

# -u'' = pi^2 sin(pi x) on (0, 1), u(0) = u(1) = 0; fixed collocation grid, L-BFGS
net = nn.Sequential(nn.Linear(1, 24), nn.Tanh(), nn.Linear(24, 24), nn.Tanh(), nn.Linear(24, 1))
x_col = torch.linspace(0.0, 1.0, 101)[1:-1]
x_bc = torch.tensor([0.0, 1.0])


def u(params, x):
    return functional_call(net, params, (x.reshape(1, 1),)).squeeze()


@torch.compile
def pinn_loss(params):
    u_xx = vmap(grad(grad(u, argnums=1), argnums=1), in_dims=(None, 0))(params, x_col)
    res = -u_xx - math.pi ** 2 * torch.sin(math.pi * x_col)
    bc = vmap(u, in_dims=(None, 0))(params, x_bc)
    return res.pow(2).mean() + 10.0 * bc.pow(2).mean()


opt = torch.optim.LBFGS(net.parameters(), lr=1.0, max_iter=20, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = pinn_loss(dict(net.named_parameters()))
    loss.backward()
    return loss


for outer in range(3):
    loss = opt.step(closure)
    print(f"outer {outer}: loss {loss.item():.6f}")

with torch.no_grad():
    xs = torch.linspace(0, 1, 21).unsqueeze(1)
    err = (net(xs).squeeze(1) - torch.sin(math.pi * xs.squeeze(1))).abs().max()
print(f"max error vs exact solution {err.item():.4f}")
