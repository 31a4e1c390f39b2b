"""pytorch/pytorch#193932 ("[inductor] `torch.compile` raises "Multiple dispatch failed for
aten.mm.out" on matmul with a bare tensor subclass input",
https://github.com/pytorch/pytorch/issues/193932): a matmul of a subclass made with as_subclass
(no __torch_dispatch__) runs in eager; the Inductor-generated code raises TypeError (torch 2.13
CPU, per the issue)."""
import torch


class Bare(torch.Tensor):
    @staticmethod
    def __new__(cls, x):
        return torch.Tensor._make_subclass(cls, x, require_grad=False)


def fn(t):
    return t @ t.t()


x = torch.randn(4, 4)
s = x.as_subclass(Bare)
print(fn(s))
print(torch.compile(fn)(s))
