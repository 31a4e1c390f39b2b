"""pytorch/pytorch#132597 ("storing std of tensor leads to inplace backwards error",
https://github.com/pytorch/pytorch/issues/132597): a module stores `x.std()` on itself and then
writes `x[i] = self.b(x[i])` into the same activation; eager trains it, the compiled module fails
(an in-place modification of a tensor autograd saved). The issue's model, on the CPU in float32."""
import torch
import torch.nn.functional as F
from torch import Tensor, nn


class L(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.a = nn.Linear(d, d, bias=False)
        self.b = nn.Linear(d, d, bias=False)

    def forward(self, x: Tensor, i: Tensor) -> Tensor:
        x = self.a(x)
        self.std = x.std()
        x[i] = self.b(x[i])
        return x


def init_and_backward(compile: bool = False):
    S, D = 5, 8
    x, y = torch.randn(S, D), torch.randn(S, D)
    idx = torch.tensor([1, 2], dtype=torch.int64)
    m = L(D)
    if compile:
        m = torch.compile(m, backend="aot_eager")
    F.mse_loss(m(x, idx), y).backward()
    assert all(p.grad is not None for p in m.parameters())


init_and_backward()
print("eager worked fine.")
init_and_backward(compile=True)
print("compiled worked fine.")
