"""pytorch/pytorch#190856 ("torch.inductor SIGSEGV at runtime when compiling `jacfwd(jacfwd(f))` and
`f` contains `trace(t) * eye(n)`", https://github.com/pytorch/pytorch/issues/190856, closed as fixed
on main after 2.13): the Inductor-compiled forward-over-forward second derivative of a function
using torch.trace segfaults on its first call, while eager computes it. The issue's repro."""
import torch
from torch.func import jacfwd

torch.set_default_dtype(torch.float64)
n = 3


def f(t):
    return torch.mean(1.0 / (t + torch.trace(t) * torch.eye(n, dtype=t.dtype)))


x = torch.tensor([[0.10, 0.20, 0.30],
                  [0.40, 0.50, 0.60],
                  [0.70, 0.80, 0.95]])

g = jacfwd(jacfwd(f))
print(g(x).shape)
print("--- inductor ---", flush=True)
print(torch.compile(g)(x).shape)
