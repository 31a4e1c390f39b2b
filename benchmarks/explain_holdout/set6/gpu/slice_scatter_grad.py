"""pytorch/pytorch#183898 ("torch.compile produces wrong gradient for slice_scatter backward on
CUDA", https://github.com/pytorch/pytorch/issues/183898, closed by a fix): eager zeroes the
gradient of the overwritten slice of x; the compiled function's backward gives 1 for every
element. The issue's script, ending in the user's own check instead of exit codes."""
import torch


def f(x, y):
    return torch.slice_scatter(x, y, dim=0, start=1, end=4).sum()


x = torch.tensor([2.0, 4.0, 6.0, 8.0, 10.0, 12.0], device="cuda", requires_grad=True)
y = torch.tensor([30.0, 40.0, 50.0], device="cuda", requires_grad=True)
f(x, y).backward()
eager_grad = x.grad.detach().cpu()

x2 = x.detach().clone().requires_grad_(True)
y2 = y.detach().clone().requires_grad_(True)
torch.compile(f, backend="inductor")(x2, y2).backward()
torch.cuda.synchronize()
compiled_grad = x2.grad.detach().cpu()
print("eager_grad:", eager_grad, "compiled_grad:", compiled_grad)
assert torch.equal(eager_grad, compiled_grad), "slice_scatter grad differs"
