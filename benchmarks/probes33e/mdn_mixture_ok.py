import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, MixtureSameFamily, Normal

torch.manual_seed(0)


class MixtureDensityNet(nn.Module):
    def __init__(self, n_components=5, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.logits = nn.Linear(hidden, n_components)
        self.means = nn.Linear(hidden, n_components)
        self.raw_scales = nn.Linear(hidden, n_components)

    def forward(self, x):
        h = self.body(x)
        scales = F.softplus(self.raw_scales(h)) + 1e-3
        return MixtureSameFamily(Categorical(logits=self.logits(h)), Normal(self.means(h), scales))


# inverse problem: x = y + 0.3 sin(2 pi y) is many-to-one from x to y
y = torch.rand(1024, 1)
x = y + 0.3 * torch.sin(2 * torch.pi * y) + 0.02 * torch.randn_like(y)
model = MixtureDensityNet()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(15):
    for xb, yb in zip(x.split(128), y.split(128)):
        mixture = compiled(xb)
        loss = -mixture.log_prob(yb.squeeze(-1)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch} nll {loss.item():.4f}")
with torch.no_grad():
    mixture = compiled(torch.tensor([[0.5]]))
    print("mixture weights at x=0.5:", [round(v, 2) for v in mixture.mixture_distribution.probs[0].tolist()])
    print("mean of y given x=0.5:", round(mixture.mean.item(), 3))
