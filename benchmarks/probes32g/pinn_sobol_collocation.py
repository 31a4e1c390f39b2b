import math
import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)

# 1D Poisson: -u''(x) = pi^2 sin(pi x) on (0, 1), u(0) = u(1) = 0
net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
sobol = torch.quasirandom.SobolEngine(dimension=1, scramble=True, seed=0)


def u(params, x):
    return functional_call(net, params, (x.reshape(1, 1),)).squeeze()


u_xx = vmap(grad(grad(u, argnums=1), argnums=1), in_dims=(None, 0))


@torch.compile
def pinn_loss(params, n_points):
    x = sobol.draw(n_points).squeeze(1)
    residual = -u_xx(params, x) - math.pi ** 2 * torch.sin(math.pi * x)
    xb = torch.tensor([0.0, 1.0])
    boundary = vmap(u, in_dims=(None, 0))(params, xb)
    return residual.pow(2).mean() + 10.0 * boundary.pow(2).mean()


opt = torch.optim.Adam(net.parameters(), lr=3e-3)
for epoch in range(30):
    params = dict(net.named_parameters())
    loss = pinn_loss(params, 128)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")

with torch.no_grad():
    xs = torch.linspace(0, 1, 11).unsqueeze(1)
    err = (net(xs).squeeze(1) - torch.sin(math.pi * xs.squeeze(1))).abs().max()
print(f"final loss {loss.item():.4f}, max error vs sin(pi x) {err.item():.3f}")
