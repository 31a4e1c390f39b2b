import torch
torch._dynamo.config.capture_scalar_outputs = True

# Van der Pol oscillator, embedded RK2(1) pair with step-size control
mu = 2.0


def rhs(y):
    return torch.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


@torch.compile
def rk_step(y, h, tol):
    k1 = rhs(y)
    k2 = rhs(y + h * k1)
    y_high = y + 0.5 * h * (k1 + k2)
    y_low = y + h * k1
    err = (y_high - y_low).abs().max()
    h_next = min(4.0 * h, max(0.2 * h, 0.9 * h * (tol / err) ** 0.5))
    return y_high, err, h_next


y = torch.tensor([2.0, 0.0])
t, h, tol = 0.0, 0.05, 1e-4
accepted = rejected = 0
while t < 1.5:
    y_new, err, h_next = rk_step(y, h, tol)
    if err.item() <= tol:
        t += h
        y = y_new
        accepted += 1
    else:
        rejected += 1
    h = float(min(h_next, 1.5 - t + 1e-12))

print(f"t = {t:.3f}, y = [{y[0].item():.4f}, {y[1].item():.4f}]")
print(f"accepted {accepted} steps, rejected {rejected}")
