"""pytorch/pytorch#191283 / PR #191373 ("Fix silent fake tensor resize in _make_inplace
decompositions", https://github.com/pytorch/pytorch/pull/191373): `a.pow_(b)` where b does not
broadcast into a's shape; eager raises "output with shape [1] doesn't match the broadcast
shape", the compile resizes the fake tensor and dies later with IndexError while producing guards.
The test harness retries after torch._dynamo.reset(), as CI's rerun did."""
import torch


def f(a, b):
    return a.pow_(b)


a, b = torch.randn(1), torch.randn(2, 1, 2, 1)
try:
    torch.compile(f, backend="eager")(a, b)
except Exception as e:
    print("first compile:", type(e).__name__, str(e).splitlines()[0][:200])
torch._dynamo.reset()
out = torch.compile(f, backend="eager")(a, b)
print("retry after reset returned", tuple(out.shape))
