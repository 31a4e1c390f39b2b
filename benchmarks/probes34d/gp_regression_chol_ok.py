import math
import torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

x_train = torch.rand(120, 1) * 10
y_train = torch.sin(x_train[:, 0]) + 0.3 * torch.cos(3 * x_train[:, 0]) + 0.1 * torch.randn(120)
x_test = torch.linspace(0, 10, 200)[:, None]

log_ls = torch.zeros((), requires_grad=True)
log_sf = torch.zeros((), requires_grad=True)
log_sn = torch.tensor(-1.0, requires_grad=True)
opt = torch.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)


def rbf(a, b, log_ls, log_sf):
    d2 = torch.cdist(a / log_ls.exp(), b / log_ls.exp()).pow(2)
    return (2 * log_sf).exp() * torch.exp(-0.5 * d2)


@torch.compile
def neg_log_marginal(x, y, log_ls, log_sf, log_sn):
    K = rbf(x, x, log_ls, log_sf) + (2 * log_sn).exp() * torch.eye(x.shape[0])
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y[:, None], L)
    fit = 0.5 * (y[:, None] * alpha).sum()
    return fit + L.diagonal().log().sum() + 0.5 * x.shape[0] * math.log(2 * math.pi)


@torch.compile
def predict(x, y, xs, log_ls, log_sf, log_sn):
    K = rbf(x, x, log_ls, log_sf) + (2 * log_sn).exp() * torch.eye(x.shape[0])
    L = torch.linalg.cholesky(K)
    Ks = rbf(xs, x, log_ls, log_sf)
    mean = Ks @ torch.cholesky_solve(y[:, None], L)
    v = torch.linalg.solve_triangular(L, Ks.T, upper=False)
    var = (2 * log_sf).exp() - v.pow(2).sum(0)
    return mean[:, 0], var


for step in range(60):
    loss = neg_log_marginal(x_train, y_train, log_ls, log_sf, log_sn)
    if not torch.isfinite(loss):
        raise RuntimeError(f"NLL is not finite at step {step}")
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step}: nll {loss.item():.4f}")

with torch.no_grad():
    mean, var = predict(x_train, y_train, x_test, log_ls, log_sf, log_sn)
truth = torch.sin(x_test[:, 0]) + 0.3 * torch.cos(3 * x_test[:, 0])
print(f"lengthscale {log_ls.exp().item():.3f}, noise {log_sn.exp().item():.3f}")
print(f"test rmse {(mean - truth).pow(2).mean().sqrt().item():.4f}, "
      f"mean std {var.clamp_min(0).sqrt().mean().item():.4f}")
