import math
import torch

torch.manual_seed(0)


def rbf(a, b, log_ls, log_sf):
    d2 = torch.cdist(a / log_ls.exp(), b / log_ls.exp()).pow(2)
    return (2 * log_sf).exp() * torch.exp(-0.5 * d2)


def safe_cholesky(K):
    eye = torch.eye(K.shape[0], dtype=K.dtype)
    L, info = torch.linalg.cholesky_ex(K)
    L_jit, _ = torch.linalg.cholesky_ex(K + 1e-3 * eye)
    return torch.where(info == 0, L, L_jit)


@torch.compile
def neg_marginal_ll(X, y, log_ls, log_sf):
    K = rbf(X, X, log_ls, log_sf)
    L = safe_cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
    n = X.shape[0]
    return 0.5 * (y @ alpha.squeeze(-1)) + L.diagonal().log().sum() + 0.5 * n * math.log(2 * math.pi)


# sensor readings: several stations report the same coordinates twice
X = torch.rand(20, 2)
X = torch.cat([X, X[:10]])
y = torch.sin(3 * X[:, 0]) + 0.1 * torch.randn(X.shape[0])

log_ls = torch.zeros(2, requires_grad=True)
log_sf = torch.zeros((), requires_grad=True)
opt = torch.optim.Adam([log_ls, log_sf], lr=0.05)
for step in range(30):
    loss = neg_marginal_ll(X, y, log_ls, log_sf)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} nll {loss.item():.3f}")
print("lengthscales", [round(v, 3) for v in log_ls.exp().tolist()])
