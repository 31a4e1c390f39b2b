"""Deep residual MLP regressor with a per-layer "saturation guard": if any activation
in a block saturates, the block's output is damped.  The guard is a Python `if` on a
tensor inside the `for block in self.blocks` loop.

Source: pytorch test/dynamo/test_error_messages.py::test_graph_break_in_loop -- correct cousin: the damping is a
torch.where, so the loop traces into one graph.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class DeepRegressor(nn.Module):
    def __init__(self, d=32, depth=6):
        super().__init__()
        self.inp = nn.Linear(8, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        h = self.inp(x)
        for block in self.blocks:
            h = h + block(h)
            h = torch.where(h.abs().max() > 20.0, h * 0.5, h)
        return self.out(h).squeeze(-1)


model = DeepRegressor()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
X = torch.randn(256, 8)
y = X[:, :3].sum(-1) + 0.1 * torch.randn(256)

for epoch in range(3):
    for i in range(0, 256, 64):
        pred = cmodel(X[i:i + 64])
        loss = F.mse_loss(pred, y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
