"""Steady-state heat on a plate: Jacobi iterations, compiled, with an early exit.

`solve` is compiled as a whole. Its loop stops early once the update is below
`tol` -- a Python `if` on a tensor inside the for loop. Dynamo cannot trace
that branch, and a graph break inside a loop makes it skip the whole frame and
run `solve` eagerly, so the compiled solver is exactly as fast as eager: no
graph is ever built. Set PROBE_TIME=1 to print eager vs compiled times to stderr.
"""
import os
import sys
import time

import torch

torch.manual_seed(0)
torch.set_num_threads(1)

N = 96


def boundary_mask(n):
    mask = torch.zeros(n, n, dtype=torch.bool)
    mask[0, :] = mask[-1, :] = mask[:, 0] = mask[:, -1] = True
    return mask


def solve(u, fixed, source, max_iters: int = 60, tol: float = 1e-6):
    h2 = 1.0 / (N - 1) ** 2
    for it in range(max_iters):
        nb = torch.zeros_like(u)
        nb[:, 1:-1, 1:-1] = u[:, :-2, 1:-1] + u[:, 2:, 1:-1] + u[:, 1:-1, :-2] + u[:, 1:-1, 2:]
        new = torch.where(fixed, u, 0.25 * (nb + h2 * source))
        delta = (new - u).abs().amax()
        u = new
        if delta < tol:
            break
    return u


def make_problem(batch=16):
    g = torch.Generator().manual_seed(0)
    u = torch.zeros(batch, N, N)
    u[:, 0, :] = torch.rand(batch, 1, generator=g) * 100.0  # hot top edge, per plate
    source = torch.randn(batch, N, N, generator=g).clamp(min=0) * 50.0
    return u, boundary_mask(N).expand(batch, N, N), source


def timed(fn, *args, reps=5):
    fn(*args)
    t0 = time.process_time()
    for _ in range(reps):
        out = fn(*args)
    return out, (time.process_time() - t0) / reps


def main():
    u0, fixed, source = make_problem()
    solve_c = torch.compile(solve)
    ref, t_eager = timed(solve, u0, fixed, source)
    out, t_comp = timed(solve_c, u0, fixed, source)
    print(f"mean temperature {out.mean():.4f}  max {out.amax():.3f}")
    print(f"max |compiled - eager| {(out - ref).abs().max():.2e}")
    if os.environ.get("PROBE_TIME"):
        print(f"solve ms eager {t_eager*1e3:.1f} compiled {t_comp*1e3:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
