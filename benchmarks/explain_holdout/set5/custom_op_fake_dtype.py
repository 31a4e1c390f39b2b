"""pytorch/pytorch#180807 ("[inductor][static launcher] Missing runtime dtype validation for
pointer-typed Triton args can silently produce incorrect results",
https://github.com/pytorch/pytorch/issues/180807, open; its PR #180810 tests it with "a bad
fake/meta dtype on a custom op"): a custom op whose fake implementation declares float16 while
the real one returns float32 makes Inductor compile the following kernel for the declared dtype,
and nothing checks the runtime tensor against it, so the compiled result is silently wrong. The
issue is on CUDA's static launcher; the CPU kernel shows the same: the plain run on torch 2.13
differs in 64 of 64 elements (max abs 23.3) and ends in the user's own assert_close."""
import torch


@torch.library.custom_op("set5::scale", mutates_args=())
def scale(x: torch.Tensor) -> torch.Tensor:
    return x * 0.5


@scale.register_fake
def _(x):
    return torch.empty_like(x, dtype=torch.float16)


def f(x):
    y = scale(x)
    return y + 1


x = torch.randn(64)
eager = f(x)
compiled = torch.compile(f)(x)
print(eager.dtype, compiled.dtype, (eager.float() - compiled.float()).abs().max())
torch.testing.assert_close(compiled.float(), eager.float())
