"""Failure (runtime, backward): pytorch/pytorch#185497 (probes46c adapter_inplace_norm_sysexit).
A compiled block reads its input (a resize for a side branch) and then normalises it in place;
the compiled graph saved the input for its backward, so autograd's version check fails at
`backward()`, where eager runs. The cause is the in-place write, not the backward."""
import torch
import torch.nn.functional as F


def adapt(h, mean, std):
    side = F.interpolate(h, size=(4, 4), mode="bilinear", align_corners=False)
    h.sub_(mean).div_(std)  # <- diagnosis
    return h, side


conv = torch.nn.Conv2d(3, 4, 3, padding=1)
mean = torch.zeros(1, 4, 1, 1, requires_grad=True)
std = torch.ones(1, 4, 1, 1, requires_grad=True)
h, side = torch.compile(adapt)(conv(torch.randn(2, 3, 8, 8)), mean, std)
(h.mean() + side.mean()).backward()
print(conv.weight.grad.sum().item())
