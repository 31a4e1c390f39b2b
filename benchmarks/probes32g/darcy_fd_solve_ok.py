import torch

torch.manual_seed(0)

# -(k(x) u')' = 1 on (0, 1), u(0) = u(1) = 0; recover log k from sparse noisy u
n = 48
h = 1.0 / n
x_nodes = torch.linspace(0, 1, n + 1)[1:-1]
x_faces = (torch.arange(n + 1) + 0.5) * h
k_true = 1.0 + 0.5 * torch.sin(2 * torch.pi * x_faces)
obs_idx = torch.arange(2, n - 1, 4)
load = torch.ones(n - 1, dtype=torch.float64)


@torch.compile
def forward_solve(log_k):
    k = log_k.exp()
    K = torch.diag(k[:-2] + k[1:-1]) - torch.diag(k[1:-2], 1) - torch.diag(k[1:-2], -1)
    return torch.linalg.solve(K / h ** 2, load)


u_obs = forward_solve(k_true.log().double())[obs_idx]
u_obs = u_obs + 1e-4 * torch.randn_like(u_obs)

log_k = torch.zeros(n + 1, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([log_k], lr=0.05)
for it in range(150):
    u = forward_solve(log_k)
    misfit = ((u[obs_idx] - u_obs) ** 2).sum() / 1e-4
    smooth = ((log_k[1:] - log_k[:-1]) ** 2).sum()
    loss = misfit + 5.0 * smooth
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 50 == 0:
        print(f"iter {it}: loss {loss.item():.4f}")
print(f"k error (max) {(log_k.exp().float() - k_true).abs().max().item():.3f}")
