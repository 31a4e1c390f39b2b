# Potential of a set of point charges on a 2-D grid. One charge is "switched off"
# (charge number 0) and sits exactly on a grid node, where 1/r is inf. IEEE says
# 0 * inf = nan, and the script counts non-finite cells as a sanity check.
import torch

torch.manual_seed(0)
n = 9
xs = torch.linspace(-1.0, 1.0, n, dtype=torch.float64)
X, Y = torch.meshgrid(xs, xs, indexing="ij")
charges = [(0.3, 0.37, 1), (-0.41, -0.22, -2), (0.0, 0.0, 0)]  # charge numbers (units of e)


@torch.compile
def potential(X, Y):
    phi = torch.zeros_like(X)
    for cx, cy, q in charges:
        r = torch.sqrt((X - cx) ** 2 + (Y - cy) ** 2)
        phi = phi + q * (1.0 / r)
    return phi


phi = potential(X, Y)
finite = torch.isfinite(phi)
print("non-finite cells:", int((~finite).sum()))
print("sum of finite potential:", round(phi[finite].sum().item(), 8))
print("phi at center:", phi[n // 2, n // 2].item())
