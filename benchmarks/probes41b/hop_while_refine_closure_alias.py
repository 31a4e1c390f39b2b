"""Iterative refinement of a linear solve with torch's while_loop.

Richardson iteration x <- x + omega * (b - A x), run a fixed number of sweeps
inside ``while_loop`` so the loop stays one graph.  The body reads the
right-hand side ``b`` from the enclosing scope, and the loop also starts from
``b`` (x_0 = b), so the same tensor is both a loop carry and a closed-over
input of the loop body.

Source: pytorch/pytorch issue #191582 ("torch.compile incorrectly reports
aliasing in while_loop cond_fn").
"""
import torch
from torch._higher_order_ops.while_loop import while_loop

torch.manual_seed(0)


def make_system(n):
    m = torch.randn(n, n) * 0.1
    return torch.eye(n) + m @ m.T          # well conditioned SPD matrix


def richardson(A, b, sweeps, omega=0.5):
    def cond_fn(i, x):
        return i < sweeps

    def body_fn(i, x):
        return i + 1, x + omega * (b - A @ x)

    _, x = while_loop(cond_fn, body_fn, (torch.tensor(0), b))
    return x


solve = torch.compile(richardson)


def main():
    for n in (8, 8, 8):
        A = make_system(n)
        b = torch.randn(n)
        x = solve(A, b, 20)
        res = torch.linalg.vector_norm(A @ x - b).item()
        print(f"n={n} residual {res:.3e}")


if __name__ == "__main__":
    main()
