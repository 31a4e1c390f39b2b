"""An adapter layer whose weights are stored in bfloat16 to save memory: the input is cast to
bfloat16, the layer and its activation run in bfloat16, and the result is upcast to float32
for the float32 model around it."""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
W = (torch.randn(64, 64) / 8).bfloat16()
B = (torch.randn(64) / 10).bfloat16()


@torch.compile
def adapter(x):
    h = x.bfloat16() @ W + B
    h = F.silu(h) * 1.702 + 0.5
    return x + h.float()


x = torch.randn(16, 64)
y = adapter(x)
print("adapter out:", round(y.sum().item(), 2), tuple(y.shape), y.dtype)
