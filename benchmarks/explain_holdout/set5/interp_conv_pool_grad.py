"""pytorch/pytorch#185509 ("[inductor] Silent incorrect gradients with interpolate, conv2d,
max_pool2d and torch.where", https://github.com/pytorch/pytorch/issues/185509): the forward of
where(mask, conv, pool) after a bilinear interpolate matches eager, but the compiled backward's
gradients differ; the issue's function, on small CPU inputs. On torch 2.13 the plain run differs
in 180 of 180 elements of x's gradient (max abs 30.5) and the program ends in the user's own
assert_close."""
import torch
import torch.nn.functional as F


def inner(x, weight, bias):
    y = F.interpolate(x, scale_factor=(1.5, 1.25), mode="bilinear", align_corners=False)
    y = y[:, :, 1:7, 1:8]
    conv = F.conv2d(y, weight, bias, padding=1)
    pool = F.max_pool2d(conv, kernel_size=3, stride=1, padding=1)
    threshold = pool.mean(dim=(2, 3), keepdim=True)
    return conv, pool, threshold


def fn(x, weight, bias, mask):
    conv, pool, _ = inner(x, weight, bias)
    return torch.where(mask, conv, pool)


torch.manual_seed(0)
x = torch.randn(2, 3, 5, 6, requires_grad=True)
w = torch.randn(4, 3, 3, 3, requires_grad=True)
b = torch.randn(4, requires_grad=True)
with torch.no_grad():
    conv, _, thr = inner(x, w, b)
    mask = conv > thr

grads = []
for f in (fn, torch.compile(fn)):
    for t in (x, w, b):
        t.grad = None
    f(x, w, b, mask).sum().backward()
    grads.append([t.grad.clone() for t in (x, w, b)])
for name, e, c in zip("xwb", *grads):
    print(name, (e - c).abs().max().item())
torch.testing.assert_close(grads[1], grads[0])
