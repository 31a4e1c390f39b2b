import torch


def damped_oscillator(t, y):
    return torch.stack([y[1], -y[0] - 0.1 * y[1]])


@torch.compile
def rk4_step(t, y, h):
    k1 = damped_oscillator(t, y)
    k2 = damped_oscillator(t + h / 2, y + h / 2 * k1)
    k3 = damped_oscillator(t + h / 2, y + h / 2 * k2)
    k4 = damped_oscillator(t + h, y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


t, t_end, h, tol = 0.0, 10.0, 0.1, 1e-9
y = torch.tensor([1.0, 0.0], dtype=torch.float64)
accepted = rejected = 0
while t < t_end:
    h = min(h, t_end - t)
    y_full = rk4_step(t, y, h)
    y_half = rk4_step(t + h / 2, rk4_step(t, y, h / 2), h / 2)
    err = (y_full - y_half).abs().max().item()
    if err < tol:
        t, y = t + h, y_half
        accepted += 1
        h *= 1.5
    else:
        rejected += 1
        h /= 2
print(f"t={t:.3f} y={y.tolist()} accepted {accepted} rejected {rejected}")
energy = 0.5 * (y ** 2).sum().item()
print(f"energy {energy:.6f}")
