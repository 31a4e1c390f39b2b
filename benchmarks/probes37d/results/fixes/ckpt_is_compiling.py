# Activation checkpointing (use_reentrant=False) of each MLP block of a small residual net,
# compiled as a whole; the block still has a debug print of the activation shape.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        if not torch.compiler.is_compiling():
            print("block input", tuple(x.shape))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class Net(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(depth))
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False)
        return self.out(x).mean()


net = Net()
cnet = torch.compile(net)
opt = torch.optim.SGD(net.parameters(), lr=0.01)
x = torch.randn(4, 32)
for step in range(3):
    loss = cnet(x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss={loss.item():.5f}")
