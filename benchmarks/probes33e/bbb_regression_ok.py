import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal

torch.manual_seed(0)


class BayesLinear(nn.Module):
    def __init__(self, n_in, n_out, prior_std=1.0):
        super().__init__()
        self.w_mu = nn.Parameter(0.1 * torch.randn(n_out, n_in))
        self.w_rho = nn.Parameter(torch.full((n_out, n_in), -4.0))
        self.b = nn.Parameter(torch.zeros(n_out))
        self.prior_std = prior_std

    def forward(self, x):
        w_std = F.softplus(self.w_rho)
        w = Normal(self.w_mu, w_std).rsample()
        var_ratio = (w_std / self.prior_std) ** 2
        self.kl = 0.5 * (var_ratio + (self.w_mu / self.prior_std) ** 2 - 1 - var_ratio.log()).sum()
        return F.linear(x, w, self.b)


class BayesMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = BayesLinear(1, 32), BayesLinear(32, 1)

    def forward(self, x):
        out = self.l2(torch.tanh(self.l1(x)))
        return out, self.l1.kl + self.l2.kl


x = torch.linspace(-2, 2, 256).unsqueeze(-1)
y = x ** 3 / 4 + 0.1 * torch.randn_like(x)
model = BayesMLP()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(10):
    for xb, yb in zip(x.split(64), y.split(64)):
        pred, kl = compiled(xb)
        nll = -Normal(pred, 0.1).log_prob(yb).sum() * (x.shape[0] / xb.shape[0])
        loss = nll + kl
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 3 == 0:
        print(f"epoch {epoch} elbo loss {loss.item():.1f}")
with torch.no_grad():
    preds = torch.stack([compiled(torch.tensor([[0.0], [1.5]]))[0] for _ in range(50)])
print("predictive std at 0 and 1.5 > 0:", bool((preds.std(0) > 0).all()))
