"""pytorch/pytorch#183017 ("`torch.compile` + `torch.while_loop`: stride mismatch crash during
backward pass", https://github.com/pytorch/pytorch/issues/183017, closed): a torch.while_loop over
a CUDA tensor compiled by Inductor runs forward and fails in the backward with a stride mismatch,
where eager computes the gradient. The repro agent's script, reduced to the compiled backward."""
import torch

torch.manual_seed(42)


def cond_fn(i, x):
    return i < 5


def body_fn(i, x):
    return i + 1, x * 0.9 + 0.1


def fn(x):
    _, result = torch.while_loop(cond_fn, body_fn, (torch.tensor(0, device="cuda"), x))
    return result.sum()


x = torch.randn(4, 64, device="cuda", requires_grad=True)
fn(x).backward()
eager_grad = x.grad.detach().clone()

x2 = x.detach().clone().requires_grad_(True)
loss = torch.compile(fn)(x2)
loss.backward()
torch.testing.assert_close(x2.grad, eager_grad)
