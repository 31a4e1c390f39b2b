# A two-headed regressor: inputs with a positive mean go through a BatchNorm head, others
# through a plain Linear head, picked per batch with torch.cond so it compiles to one graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Router(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.enc = nn.Linear(d, d)
        self.bn_head = nn.Sequential(nn.BatchNorm1d(d), nn.Linear(d, 1))
        self.lin_head = nn.Linear(d, 1)

    def forward(self, x):
        h = torch.relu(self.enc(x))
        return torch.where(x.mean() > 0, self.bn_head(h), self.lin_head(h))


model = Router()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(4):
    x = torch.randn(16, 8) + (0.5 if step % 2 == 0 else -0.5)
    y = x.sum(1, keepdim=True)
    loss = nn.functional.mse_loss(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss={loss.item():.4f}")
