"""pytorch/pytorch#197067 ("`torch.compile` SEGFAULTs on a ZeroTensor produced by a normal
autograd path (gradient of `torch.sgn`)", https://github.com/pytorch/pytorch/issues/197067): the
gradient of sgn is a ZeroTensor; eager indexes it (tensor(10.)), the compiled CPU kernel reads it
and the process dies with SIGSEGV (exit 139)."""
import torch

x = torch.randn(3, requires_grad=True)
z = torch.autograd.grad(torch.sgn(x).sum(), x)[0]
print("zerotensor:", z._is_zerotensor())


def fn(t):
    return t[-1] + 10


print(fn(z))
print(torch.compile(fn, backend="inductor")(z))
