import torch
import torch.nn as nn
from torch.distributions import MultivariateNormal, Normal, kl_divergence

torch.manual_seed(0)


class BayesianLinearRegression(nn.Module):
    """Full-covariance Gaussian posterior over the weights, fitted by the ELBO."""

    def __init__(self, dim):
        super().__init__()
        self.q_mean = nn.Parameter(torch.zeros(dim))
        self.q_raw_tril = nn.Parameter(torch.zeros(dim, dim))
        self.register_buffer("prior_mean", torch.zeros(dim))
        self.register_buffer("prior_tril", torch.eye(dim))

    def posterior(self):
        tril = torch.tril(self.q_raw_tril, -1) + torch.diag(nn.functional.softplus(self.q_raw_tril.diagonal()) + 1e-4)
        return MultivariateNormal(self.q_mean, scale_tril=tril)

    def forward(self, x, y, n_data):
        q = self.posterior()
        w = q.rsample((8,))
        pred = x @ w.T
        log_lik = Normal(pred, 0.3).log_prob(y.unsqueeze(-1)).mean(-1).sum()
        prior = MultivariateNormal(self.prior_mean, scale_tril=self.prior_tril)
        Lq, Lp = q.scale_tril, prior.scale_tril
        M = torch.linalg.solve_triangular(Lp, Lq, upper=False)
        d = torch.linalg.solve_triangular(Lp, (self.q_mean - self.prior_mean).unsqueeze(-1), upper=False)
        kl = 0.5 * (M.pow(2).sum() + d.pow(2).sum() - Lq.shape[0]) + Lp.diagonal().log().sum() - Lq.diagonal().log().sum()
        return -(log_lik * n_data / x.shape[0] - kl)


true_w = torch.tensor([1.5, -2.0, 0.5, 0.0])
X = torch.randn(512, 4)
Y = X @ true_w + 0.3 * torch.randn(512)
model = BayesianLinearRegression(4)
elbo_loss = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(5):
    for xb, yb in zip(X.split(128), Y.split(128)):
        loss = elbo_loss(xb, yb, X.shape[0])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} -elbo {loss.item():.2f}")
print("posterior mean", [round(v, 2) for v in model.q_mean.tolist()])
