"""pytorch/pytorch#190855 ("[inductor] Wrong Hessian: `torch.compile(torch.func.hessian(f))`
miscompiles the derivative of `torch.trace` — a constant is added to every Hessian entry",
https://github.com/pytorch/pytorch/issues/190855, open): the compiled Hessian of a function using
torch.trace equals eager's plus a constant in nearly every entry (first derivatives and the value
are right). The issue's function; the program checks the compiled Hessian against eager's."""
import torch
from torch.func import hessian

torch.set_default_dtype(torch.float64)
n = 3


def f(t):
    return torch.mean(1.0 / (t + torch.trace(t) * torch.eye(n, dtype=t.dtype)))


x = torch.tensor([[0.10, 0.20, 0.30],
                  [0.40, 0.50, 0.60],
                  [0.70, 0.80, 0.95]])

H_eager = hessian(f)(x).reshape(n * n, n * n)
H_ind = torch.compile(hessian(f))(x).reshape(n * n, n * n)
print("diff row 5:", [f"{v:+.6f}" for v in (H_ind - H_eager)[5].tolist()])
torch.testing.assert_close(H_ind, H_eager)
