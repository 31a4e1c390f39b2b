import torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

# Random-walk-plus-velocity model for 8 noisy temperature sensors, 60 readings each.
dt = 1.0
F = torch.tensor([[1.0, dt], [0.0, 1.0]])
H = torch.tensor([[1.0, 0.0]])
Q = torch.tensor([[0.01, 0.0], [0.0, 0.001]])
R = torch.tensor([[0.25]])


@torch.compile
def filter_step(mean, cov, z):
    mean_p = mean @ F.T
    cov_p = F @ cov @ F.T + Q
    S = H @ cov_p @ H.T + R
    K = torch.linalg.solve(S, H @ cov_p).mT
    mean = mean_p + (K @ (z[:, None] - mean_p @ H.T)[..., None]).squeeze(-1)
    cov = (torch.eye(2) - K @ H) @ cov_p
    return mean, cov, mean_p, cov_p


@torch.compile
def smooth_step(mean_f, cov_f, mean_p_next, cov_p_next, mean_s_next, cov_s_next):
    G = torch.linalg.solve(cov_p_next, F @ cov_f).mT
    mean_s = mean_f + (G @ (mean_s_next - mean_p_next)[..., None]).squeeze(-1)
    cov_s = cov_f + G @ (cov_s_next - cov_p_next) @ G.mT
    return mean_s, cov_s


T, n = 60, 8
true_temp = 20 + torch.cumsum(0.1 * torch.randn(n, T), dim=1)
readings = true_temp + 0.5 * torch.randn(n, T)
mean, cov = torch.zeros(n, 2), 10.0 * torch.eye(2).expand(n, 2, 2)
mean[:, 0] = readings[:, 0]
filtered, predicted = [], []
for t in range(T):
    mean, cov, mean_p, cov_p = filter_step(mean, cov, readings[:, t])
    filtered.append((mean, cov))
    predicted.append((mean_p, cov_p))
smoothed = [filtered[-1]]
for t in range(T - 2, -1, -1):
    smoothed.insert(0, smooth_step(*filtered[t], *predicted[t + 1], *smoothed[0]))
est = torch.stack([m[:, 0] for m, _ in smoothed], dim=1)
filt = torch.stack([m[:, 0] for m, _ in filtered], dim=1)
for name, x in [("raw", readings), ("filtered", filt), ("smoothed", est)]:
    print(f"{name:9s} rmse {(x - true_temp).pow(2).mean().sqrt().item():.4f}")
