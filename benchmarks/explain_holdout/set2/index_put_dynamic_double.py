"""pytorch/pytorch#138908 ("Output mismatch between torch.compile and eager mode",
https://github.com/pytorch/pytorch/issues/138908): `y[x] += y[x]` compiled with dynamic=True
quadruples the row instead of doubling it; the user's allclose fails."""
import torch


@torch.compile(backend="inductor", dynamic=True)
def test1_fn(x, y):
    x = x + 10
    y[x] += y[x]


x = torch.randint(-10, -9, (1, 2), dtype=torch.int64)
y = torch.randn((2, 32), dtype=torch.float32)
x_clone = x.clone()
y_clone = y.clone()
with torch.no_grad():
    x_clone = x_clone + 10
    y_clone[x_clone] += y_clone[x_clone]
    test1_fn(x, y)
    assert torch.allclose(y_clone, y)
