# Lag features with torch.roll; the lags live in a registered buffer (saved with the
# model), and the forward iterates over it.
import torch
import torch.nn as nn

torch.manual_seed(0)


class LagNet(nn.Module):
    def __init__(self, lags=(1, 7, 14), length=28):
        super().__init__()
        self.register_buffer("lags", torch.tensor(lags))
        self.head = nn.Linear(length * (len(lags) + 1), 1)

    def forward(self, y):
        feats = [y]
        for k in self.lags:
            lagged = torch.roll(y, shifts=k, dims=1)
            feats.append(lagged)
        return self.head(torch.cat(feats, dim=1)).squeeze(1)


model = LagNet()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
y = torch.randn(16, 28)
target = y[:, -1] * 0.5
for step in range(3):
    loss = (cmodel(y) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
