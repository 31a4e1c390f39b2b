import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)

# advection u_t + c u_x = 0 with u(0, x) = sin(2 pi x); points resampled every epoch
c = 0.8
net = nn.Sequential(nn.Linear(2, 24), nn.Tanh(), nn.Linear(24, 1))


def u(params, tx):
    return functional_call(net, params, (tx.unsqueeze(0),)).squeeze()


du = vmap(grad(u, argnums=1), in_dims=(None, 0))


@torch.compile
def residual(params, pts, chunk=128):
    parts = []
    for block in pts.split(chunk):
        g = du(params, block)
        parts.append(g[:, 0] + c * g[:, 1])
    return torch.cat(parts)


opt = torch.optim.Adam(net.parameters(), lr=5e-3)
for epoch in range(6):
    n_interior = int(torch.randint(150, 400, ()).item())
    pts = torch.rand(n_interior, 2)
    x0 = torch.rand(64, 1)
    init = net(torch.cat([torch.zeros_like(x0), x0], dim=1)) - torch.sin(2 * torch.pi * x0)
    params = dict(net.named_parameters())
    loss = residual(params, pts).pow(2).mean() + init.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: {n_interior} points, loss {loss.item():.4f}")
