import math
import torch
import torch.nn as nn
torch.compiler.set_stance("force_eager")

torch.manual_seed(0)

# viscous Burgers: u_t + u u_x = (0.01/pi) u_xx, u(0, x) = -sin(pi x)
nu = 0.01 / math.pi


class PINN(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, width), nn.Tanh(),
                                  nn.Linear(width, width), nn.Tanh(),
                                  nn.Linear(width, 1))

    def forward(self, t, x):
        return self.body(torch.cat([t, x], dim=1))


model = torch.compile(PINN())
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(10):
    t = torch.rand(200, 1, requires_grad=True)
    x = (2 * torch.rand(200, 1) - 1).requires_grad_(True)
    u = model(t, x)
    u_t, u_x = torch.autograd.grad(u.sum(), (t, x), create_graph=True)
    u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]
    f = u_t + u * u_x - nu * u_xx
    x0 = 2 * torch.rand(100, 1) - 1
    ic = model(torch.zeros_like(x0), x0) + torch.sin(math.pi * x0)
    loss = f.pow(2).mean() + ic.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss {loss.item():.5f}")
