# Per-region evaluation of a least-squares model with adjusted R^2. A region with
# n <= P + 1 samples has no adjusted R^2 (the adjustment divides by n - P - 1), so the
# metric falls back to plain R^2 when that division raises ZeroDivisionError.
import torch

torch.manual_seed(0)
P = 3
w_true = torch.tensor([1.5, -2.0, 0.5])


def adjusted_r2(pred, y):
    n = y.shape[0]
    ss_res = ((y - pred) ** 2).sum()
    ss_tot = ((y - y.mean()) ** 2).sum()
    r2 = 1 - ss_res / ss_tot
    if n - P - 1 <= 0:  # fix: test the denominator instead of catching ZeroDivisionError
        return r2  # too few samples for the adjustment
    k = (n - 1) / (n - P - 1)
    return 1 - (1 - r2) * k


metric = torch.compile(adjusted_r2)

X = torch.randn(200, P)
y = X @ w_true + 0.3 * torch.randn(200)
w = torch.linalg.lstsq(X, y.unsqueeze(1)).solution.squeeze(1)
print("fitted w", [round(v, 3) for v in w.tolist()])

regions = {"north": 48, "south": 4, "east": 30, "west": 9}
for name, n in regions.items():
    Xr = torch.randn(n, P)
    yr = Xr @ w_true + 0.3 * torch.randn(n)
    score = metric(Xr @ w, yr)
    print(f"{name:5s} n={n:3d} adj_r2={score.item():.4f}")
