import torch


@torch.compile
def cube_root(a, tol=1e-12, max_iter=60):
    x = torch.where(a > 1, a / 3, torch.ones_like(a))
    for it in range(max_iter):
        step = (x ** 3 - a) / (3 * x ** 2)
        x = x - step
        if step.abs().max() < tol:
            break
    return x, it + 1


torch.manual_seed(0)
for batch in range(4):
    a = torch.rand(100_000, dtype=torch.float64) * 1000 + 1e-3
    root, iters = cube_root(a)
    resid = (root ** 3 - a).abs().div(a).max().item()
    print(f"batch {batch}: converged in {iters} iterations, max rel residual {resid:.2e}")
