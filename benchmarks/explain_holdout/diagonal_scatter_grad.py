"""pytorch/pytorch#182012: "`torch.compile` silently produces all-zero `x.grad` for
`diagonal_scatter(...).sum().backward()`". The forward is right; the compiled backward gives x
a zero gradient where eager gives 1 off the diagonal."""
import torch


def fn(x, src):
    return torch.diagonal_scatter(x, src).sum()


x = torch.randn(8, 8, requires_grad=True)
src = torch.randn(8, requires_grad=True)
loss = torch.compile(fn)(x, src)
loss.backward()
print("x.grad sum:", x.grad.sum().item())
