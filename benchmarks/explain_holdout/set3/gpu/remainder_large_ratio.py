"""pytorch/pytorch#194345 ("[inductor][cuda] `torch.remainder` / `torch.fmod` wrong results
under `torch.compile` on CUDA for large |a/b| ratios",
https://github.com/pytorch/pytorch/issues/194345): on CUDA the compiled remainder/fmod return a
wrong finite value, -inf or NaN when |a / b| is huge, while eager CUDA, eager CPU and compiled CPU
agree (reproduced on torch 2.13.0+cu130). The issue prints both; here the program compares them,
with a torch._dynamo.reset() before each compile as the issue does."""
import torch


def main():
    cases = [
        (torch.remainder, 1e10, 1e-20, torch.float32),
        (torch.remainder, 65504.0, 6e-8, torch.float32),
        (torch.fmod, 3.4e38, 1.4e-45, torch.float32),
    ]
    for fn, a, b, dtype in cases:
        x = torch.tensor([a], dtype=dtype, device="cuda")
        y = torch.tensor([b], dtype=dtype, device="cuda")
        e = fn(x, y)
        torch._dynamo.reset()
        c = torch.compile(fn)(x, y)
        print(fn.__name__, a, b, dtype, "eager=", e.item(), "compiled=", c.item())
        torch.testing.assert_close(c, e)


main()
