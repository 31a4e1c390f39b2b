"""pytorch/pytorch#197098: "[inductor] binary_cross_entropy with a weight of another dtype ...
return float32 under Inductor; eager and aot_eager return the input dtype". A bfloat16 loss with
a float32 weight is bfloat16 in eager and float32 once compiled (CPU)."""
import torch
import torch.nn.functional as F


def loss_fn(p, t, w):
    return F.binary_cross_entropy(p, t, weight=w)


p = torch.rand(8, 4).clamp(0.05, 0.95).to(torch.bfloat16)
t = torch.randint(0, 2, (8, 4)).to(torch.bfloat16)
w = torch.rand(8, 4)
out = torch.compile(loss_fn)(p, t, w)
print(out.dtype, out)
