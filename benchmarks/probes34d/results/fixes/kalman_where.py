import torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

# Constant-velocity tracker in 2-D: state (x, y, vx, vy), position measurements.
dt = 0.1
F = torch.eye(4)
F[0, 2] = F[1, 3] = dt
H = torch.zeros(2, 4)
H[0, 0] = H[1, 1] = 1.0
Q = 1e-3 * torch.eye(4)
R = 0.05 * torch.eye(2)


@torch.compile
def kalman_step(mean, cov, z):
    mean = mean @ F.T
    cov = F @ cov @ F.T + Q
    S = H @ cov @ H.T + R
    L, info = torch.linalg.cholesky_ex(S)
    L_jit = torch.linalg.cholesky_ex(S + 1e-6 * torch.eye(2)).L
    L = torch.where(info.any(), L_jit, L)
    K = torch.cholesky_solve(H @ cov, L).mT
    innovation = z - mean @ H.T
    mean = mean + (K @ innovation.unsqueeze(-1)).squeeze(-1)
    cov = (torch.eye(4) - K @ H) @ cov
    return mean, cov


n_targets = 16
truth = torch.zeros(n_targets, 4)
truth[:, 2:] = torch.randn(n_targets, 2)
mean = torch.zeros(n_targets, 4)
cov = torch.eye(4).expand(n_targets, 4, 4).clone()
for t in range(40):
    truth = truth @ F.T
    z = truth[:, :2] + 0.2 * torch.randn(n_targets, 2)
    mean, cov = kalman_step(mean, cov, z)
    if t % 10 == 9:
        err = (mean[:, :2] - truth[:, :2]).norm(dim=-1).mean()
        print(f"step {t + 1}: mean position error {err.item():.4f}")
