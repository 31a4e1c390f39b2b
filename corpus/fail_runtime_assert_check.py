# after pytorch/pytorch#151127: Wrong handling of deferred == and != runtime checks in torch.compile!
"""Failure (runtime) from a check the program asked for: `torch._check` on a value read with
`.item()` becomes a deferred runtime assertion in the compiled graph. The second call breaks
it, and the compiled code raises "Runtime assertion failed for expression u0 <= 5"; the FX
node of the assertion carries the user's `torch._check` line."""
import torch

torch._dynamo.config.capture_scalar_outputs = True


@torch.compile(fullgraph=True, backend="aot_eager")
def scale_by(x, n):
    k = n.item()
    torch._check(k <= 5)  # <- diagnosis
    return x * k


scale_by(torch.randn(4), torch.tensor([5]))
scale_by(torch.randn(4), torch.tensor([100]))
print("ok")
