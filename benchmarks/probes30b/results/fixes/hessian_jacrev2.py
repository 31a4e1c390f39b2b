import torch
from torch.func import jacrev, vmap


def potential(x):
    # anharmonic confining potential of one particle
    r = x.norm()
    return 0.5 * r ** 2 + 0.1 * r ** 4


@torch.compile
def local_curvature(positions):
    H = vmap(jacrev(jacrev(potential)))(positions)
    eigvals = torch.linalg.eigvalsh(H)
    return eigvals.min(dim=-1).values, eigvals.max(dim=-1).values


torch.manual_seed(0)
positions = torch.randn(256, 3, dtype=torch.float64)
lo, hi = local_curvature(positions)
print(f"smallest curvature {lo.min().item():.4f}, largest {hi.max().item():.4f}")
print(f"stiffness ratio {(hi / lo).max().item():.2f}")
