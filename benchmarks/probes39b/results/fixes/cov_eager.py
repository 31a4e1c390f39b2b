# Monte Carlo uncertainty propagation for a damped oscillator: sample uncertain
# (k, c), integrate with a few explicit RK4 steps, and return the mean and the
# sample covariance of the final state. Compiled with fullgraph=True so the
# whole propagation is one graph.
import torch

torch.manual_seed(0)


def rk4(y, k, c, h):
    def f(y):
        return torch.stack([y[1], -k * y[0] - c * y[1]])
    a = f(y); b = f(y + 0.5 * h * a); d = f(y + 0.5 * h * b); e = f(y + h * d)
    return y + h / 6 * (a + 2 * b + 2 * d + e)



def propagate(k, c):
    y = torch.stack([torch.ones_like(k), torch.zeros_like(k)])
    for _ in range(20):
        y = rk4(y, k, c, 0.05)
    mean = y.mean(dim=1)
    cov = torch.cov(y)
    return mean, cov


k = 4.0 + 0.2 * torch.randn(256, dtype=torch.float64)
c = 0.3 + 0.05 * torch.randn(256, dtype=torch.float64)
mean, cov = propagate(k, c)
print("mean:", [round(v, 6) for v in mean.tolist()])
print("cov:", [[round(v, 8) for v in row] for row in cov.tolist()])
