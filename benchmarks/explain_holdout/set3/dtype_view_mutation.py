"""pytorch/pytorch#198101 ("[inductor] Consumer of a dtype view of an input is computed after a
later in-place mutation of that input", https://github.com/pytorch/pytorch/issues/198101):
`y = x.view(int32) * 2; y.sub_(-4); x[:, 2:5] = 2; return y.view(int64)` must reflect x before
the mutation; Inductor computes y's read of x after it (the issue's repro is on CUDA; run here
on the CPU)."""
import torch


def fn(x):
    y = x.view(torch.int32) * 2
    y.sub_(-4)
    x[:, 2:5] = 2
    return y.view(torch.int64)


x = torch.arange(-12, 12, dtype=torch.int64).reshape(4, 6)
eager = fn(x.clone())
compiled = torch.compile(fn, backend="inductor")(x.clone())
print(eager.flatten().tolist()[:6])
print(compiled.flatten().tolist()[:6])
torch.testing.assert_close(compiled, eager)
