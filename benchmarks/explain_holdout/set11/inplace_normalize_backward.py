"""pytorch/pytorch#185497 ("[pt2] RuntimeError: variable modified by inplace operation during
backward in compiled mode (succeeds in eager)", open): a preprocessing step resizes a crop of
an image with F.interpolate and then normalises the image in place (`x.sub_(mean).div_(std)`).
Eager's backward never needs the pre-normalisation values; the compiled graph's backward does,
so the backward fails on the in-place normalisation (reported on CUDA; the same on CPU)."""
import torch
import torch.nn.functional as F


@torch.compile
def preprocess(x, mean, std):
    y = F.interpolate(x[:, :64, :64].unsqueeze(0), size=(32, 32), mode="bilinear",
                      align_corners=False)
    x.sub_(mean).div_(std)
    return y, x


base = torch.randn(1, 3, 128, 128, requires_grad=True)
x = (base * 1.0).squeeze(0)[:, :128, :128]
mean = torch.randn(3, 1, 1, requires_grad=True)
std = torch.randn(3, 1, 1).abs().add(0.5).requires_grad_()
y, z = preprocess(x, mean, std)
loss = y.sum() + z.sum()
loss.backward()
print("grad", base.grad.shape)
