import torch

torch.manual_seed(0)


def vandermonde(x, degree):
    return torch.stack([x ** k for k in range(degree + 1)], dim=-1)


@torch.compile
def fit_polynomials(x, y, degree):
    A = vandermonde(x, degree)
    coeffs = torch.linalg.lstsq(A, y.unsqueeze(-1)).solution.squeeze(-1)
    residual = (A @ coeffs.unsqueeze(-1)).squeeze(-1) - y
    return coeffs, residual.pow(2).mean(dim=-1).sqrt()


# 64 noisy calibration curves, each sampled at 200 points
x = torch.linspace(-1, 1, 200, dtype=torch.float64).expand(64, 200)
true = torch.randn(64, 4, dtype=torch.float64)
y = (vandermonde(x, 3) @ true.unsqueeze(-1)).squeeze(-1)
y = y + 0.01 * torch.randn_like(y)

for step in range(3):
    coeffs, rms = fit_polynomials(x, y, 3)
    err = (coeffs - true).abs().max().item()
    print(f"pass {step}: max coeff error {err:.2e}, mean rms {rms.mean().item():.4f}")
