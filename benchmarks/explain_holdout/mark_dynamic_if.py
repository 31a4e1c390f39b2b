"""pytorch/pytorch#136002: mark_dynamic fails with a ConstraintViolationError when the code
branches on the exact size (`if x.size(0) == 5`); the error should name the line that
specialised it ("# REPORT ME" in the issue)."""
import torch


@torch.compile(backend="eager")
def f(x):
    if x.size(0) == 5:  # REPORT ME
        return x * 2
    else:
        return x + 1


x = torch.randn(5)
torch._dynamo.mark_dynamic(x, 0)
f(x)
