"""Failure (inductor_codegen, backward): probes46c bisenet_context_avg_up_crash (a BiSeNetV1
context path). A 1x1 global-context map upsampled back with `F.interpolate(mode="nearest")`:
the forward compiles, and Inductor's C++ codegen asserts (`index.is_vec` in cpp.py's store)
while compiling the backward graph at the first backward(). torch's traceback points at
`backward()`; the backward node's stack trace names the interpolate."""
import torch
import torch.nn.functional as F


def context_head(feat, w):
    avg = F.avg_pool2d(feat, feat.size()[2:])
    avg = torch.relu(F.conv2d(avg, w))
    up = F.interpolate(avg, feat.shape[2:], mode="nearest")  # <- diagnosis
    return (feat + up).sum()


feat = torch.randn(2, 8, 4, 4, requires_grad=True)
w = torch.randn(8, 8, 1, 1, requires_grad=True)
torch.compile(context_head)(feat, w).backward()
print(feat.grad.sum().item())
