"""Steady-state heat on a plate: Jacobi iterations, compiled in chunks of 10 sweeps.

Correct cousin of heat_jacobi_tol_check_in_loop.py: the compiled function runs
a fixed number of sweeps with no tensor-valued `if` inside, and returns the
last update size; the early-exit test runs in the caller between chunks, so
the whole chunk is one graph. Nothing to fix. Set PROBE_TIME=1 to print eager
vs compiled times to stderr.
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


def sweeps(u, fixed, source, n_sweeps: int = 10):
    h2 = 1.0 / (N - 1) ** 2
    for _ in range(n_sweeps):
        nb = torch.zeros_like(u)
        nb[:, 1:-1, 1:-1] = u[:, :-2, 1:-1] + u[:, 2:, 1:-1] + u[:, 1:-1, :-2] + u[:, 1:-1, 2:]
        new = torch.where(fixed, u, 0.25 * (nb + h2 * source))
        delta = (new - u).abs().amax()
        u = new
    return u, delta


def solve(sweep_fn, u, fixed, source, max_iters=60, tol=1e-6):
    for _ in range(0, max_iters, 10):
        u, delta = sweep_fn(u, fixed, source)
        if delta < tol:
            break
    return u


def make_problem(batch=16):
    g = torch.Generator().manual_seed(0)
    u = torch.zeros(batch, N, N)
    u[:, 0, :] = torch.rand(batch, 1, generator=g) * 100.0  # hot top edge, per plate
    source = torch.randn(batch, N, N, generator=g).clamp(min=0) * 50.0
    return u, boundary_mask(N).expand(batch, N, N), source


def timed(sweep_fn, *args, reps=5):
    solve(sweep_fn, *args)
    t0 = time.process_time()
    for _ in range(reps):
        out = solve(sweep_fn, *args)
    return out, (time.process_time() - t0) / reps


def main():
    u0, fixed, source = make_problem()
    sweeps_c = torch.compile(sweeps)
    ref, t_eager = timed(sweeps, u0, fixed, source)
    out, t_comp = timed(sweeps_c, u0, fixed, source)
    print(f"mean temperature {out.mean():.4f}  max {out.amax():.3f}")
    print(f"max |compiled - eager| {(out - ref).abs().max():.2e}")
    if os.environ.get("PROBE_TIME"):
        print(f"solve ms eager {t_eager*1e3:.1f} compiled {t_comp*1e3:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
