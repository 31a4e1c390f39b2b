# weight_norm parametrization + activation checkpointing + an input-normalizing forward pre-hook.
import copy
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = weight_norm(nn.Linear(d, 2 * d))
        self.fc2 = weight_norm(nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(x)))


class Net(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(2)])
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False)
        return self.out(x)


def standardize(module, args):
    (x,) = args
    return ((x - x.mean(0)) / (x.std(0) + 1e-5),)


torch.manual_seed(0)
m_e = Net()
m_e.register_forward_pre_hook(standardize)
m_c = copy.deepcopy(m_e)
cm = torch.compile(m_c)
opt_e = torch.optim.SGD(m_e.parameters(), lr=0.05)
opt_c = torch.optim.SGD(m_c.parameters(), lr=0.05)
for step in range(4):
    x, y = 5 * torch.randn(16, 8) + 2, torch.randn(16, 1)
    for model, opt in ((m_e, opt_e), (cm, opt_c)):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
diff = max((a - b).abs().max().item() for a, b in zip(m_e.parameters(), m_c.parameters()))
print(f"max |param compiled - eager| after 4 steps: {diff:.2e}", "OK" if diff < 1e-5 else "MISMATCH")
