# Drawn from pytorch/pytorch#198131 ("[inductor] `dst[:] = src[:]; src.add_(1)`
# copies the *updated* `src` into `dst`"). Reproduces on CPU with torch 2.13:
# the compiled sweep writes the snapshot `prev[:] = u[:]` after the in-place
# update of `u`, so `u - prev` is 0 and the solver "converges" after one sweep.
import torch

torch.manual_seed(0)


@torch.compile
def jacobi_sweep(u, prev, f, h2):
    prev[:] = u[:]  # keep the previous iterate for the convergence test
    interior = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                       - h2 * f[1:-1, 1:-1])
    u[1:-1, 1:-1] = interior


def solve_poisson(n=32, tol=1e-4, max_iter=200):
    f = torch.randn(n, n)
    u = torch.zeros(n, n)
    prev = torch.empty_like(u)
    h2 = 1.0 / (n - 1) ** 2
    for it in range(max_iter):
        jacobi_sweep(u, prev, f, h2)
        delta = (u - prev).abs().max().item()
        if delta < tol:
            break
    return u, it + 1, delta


def main():
    u, iters, delta = solve_poisson()
    print(f"converged after {iters} sweeps, last update {delta:.3e}")
    print(f"solution: sum |u| = {u.abs().sum().item():.6f}, u[16,16] = {u[16, 16].item():.6f}")


if __name__ == "__main__":
    main()
