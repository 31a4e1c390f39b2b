import torch
import torch.nn as nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self, hidden=64, p=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(4, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, 1),
        )

    def forward(self, x):
        return self.net(x)


def enable_mc_dropout(model):
    model.eval()
    for m in model.modules():
        if isinstance(m, nn.Dropout):
            m.train()


X = torch.randn(512, 4)
y = (X[:, :1] * 2 - X[:, 1:2]) + 0.1 * torch.randn(512, 1)
model = Regressor()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(10):
    for xb, yb in zip(X.split(64), y.split(64)):
        loss = nn.functional.mse_loss(compiled(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
print(f"train mse {loss.item():.4f}")

enable_mc_dropout(model)
x_test = torch.cat([torch.zeros(1, 4), 6 * torch.ones(1, 4)])
with torch.no_grad():
    samples = torch.stack([compiled(x_test) for _ in range(100)])
mean, std = samples.mean(0).squeeze(-1), samples.std(0).squeeze(-1)
print("in-distribution std < out-of-distribution std:", bool(std[0] < std[1]))
