"""pytorch/pytorch#182131: Inductor's result for a float16 cast before an elementwise add
differs from eager, and the reporter's exact check (assert_close with rtol=0, atol=0) fails."""
import torch

x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) / 10
c = (torch.arange(24) % 5 == 0).reshape(2, 3, 4)


def f(x, c):
    z = torch.where(c, torch.full_like(x, 0.5), torch.full_like(x, -0.5))
    y = z.to(torch.float16) + x.to(torch.float16)
    return y, y.float().sum()


eager = f(x, c)
compiled = torch.compile(f, backend="inductor", fullgraph=True)(x, c)
torch.testing.assert_close(compiled[0], eager[0], rtol=0, atol=0)
torch.testing.assert_close(compiled[1], eager[1], rtol=0, atol=0)
