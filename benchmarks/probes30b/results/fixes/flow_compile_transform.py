import torch
from torch.func import jacrev, vmap


def velocity_field(state):
    x, y = state[0], state[1]
    # Duffing-type oscillator, mu damping
    mu = 0.2
    return torch.stack([y, x - x ** 3 - mu * y])


batched_jacobian = torch.compile(vmap(jacrev(velocity_field)))


def classify(points):
    J = batched_jacobian(points)
    tr = J.diagonal(dim1=-2, dim2=-1).sum(-1)
    det = torch.linalg.det(J)
    return tr, det


fixed_points = torch.tensor([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0]], dtype=torch.float64)
for sweep in range(3):
    pts = fixed_points + 1e-3 * sweep
    tr, det = classify(pts)
    for p, t, d in zip(pts.tolist(), tr.tolist(), det.tolist()):
        kind = "saddle" if d < 0 else ("stable" if t < 0 else "unstable")
        print(f"sweep {sweep} point ({p[0]:+.3f}, {p[1]:+.3f}): trace {t:+.3f} det {d:+.3f} -> {kind}")
