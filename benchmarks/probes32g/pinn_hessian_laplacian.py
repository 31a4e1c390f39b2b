import math
import torch
import torch.nn as nn
from torch.func import functional_call, hessian, vmap

torch.manual_seed(0)

# 2D Poisson: -(u_xx + u_yy) = 2 pi^2 sin(pi x) sin(pi y) on the unit square
net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))


def u(params, xy):
    return functional_call(net, params, (xy.unsqueeze(0),)).squeeze()


@torch.compile
def pde_loss(params, xy):
    H = vmap(hessian(u, argnums=1), in_dims=(None, 0))(params, xy)
    lap = H[:, 0, 0] + H[:, 1, 1]
    f = 2 * math.pi ** 2 * torch.sin(math.pi * xy[:, 0]) * torch.sin(math.pi * xy[:, 1])
    return (-lap - f).pow(2).mean()


opt = torch.optim.Adam(net.parameters(), lr=2e-3)
for epoch in range(20):
    xy = torch.rand(256, 2)
    edge = torch.rand(64, 2)
    edge[:32, 0] = torch.randint(0, 2, (32,)).float()
    edge[32:, 1] = torch.randint(0, 2, (32,)).float()
    loss = pde_loss(dict(net.named_parameters()), xy) + 10 * net(edge).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
