import torch
import torch.nn as nn
import math

torch.manual_seed(0)


class InvConv1x1(nn.Module):
    def __init__(self, c):
        super().__init__()
        w = torch.linalg.qr(torch.randn(c, c))[0]
        self.weight = nn.Parameter(w)

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        logdet = h * w * torch.slogdet(self.weight)[1]
        return torch.nn.functional.conv2d(x, self.weight.view(*self.weight.shape, 1, 1)), logdet


class ActNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, c, 1, 1))
        self.log_scale = nn.Parameter(torch.zeros(1, c, 1, 1))

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        return (x + self.loc) * torch.exp(self.log_scale), h * w * self.log_scale.sum()


class Flow(nn.Module):
    def __init__(self, c=4, depth=4):
        super().__init__()
        self.layers = nn.ModuleList([m for _ in range(depth) for m in (ActNorm(c), InvConv1x1(c))])

    def forward(self, x):
        total = torch.zeros(())
        for layer in self.layers:
            x, ld = layer(x)
            total = total + ld
        log_pz = -0.5 * (x ** 2 + math.log(2 * math.pi)).sum(dim=(1, 2, 3))
        return -(log_pz + total).mean()


flow = Flow()
opt = torch.optim.Adam(flow.parameters(), lr=1e-2)
nll = torch.compile(flow)
images = torch.randn(32, 4, 8, 8) * 2.0 + 0.5
for step in range(8):
    loss = nll(images)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} nll/dim {loss.item() / (4 * 8 * 8):.4f}")
