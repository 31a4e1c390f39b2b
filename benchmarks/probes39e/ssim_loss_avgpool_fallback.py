# Image restoration training with an SSIM + L1 loss; the SSIM local statistics use
# an 11x11 uniform window (F.avg_pool2d), as in many SSIM re-implementations.
import torch
import torch.nn as nn
import torch.nn.functional as F


def local_mean(t):
    return F.avg_pool2d(t, kernel_size=11, stride=1, padding=5, count_include_pad=False)


def ssim(a, b, c1=0.01 ** 2, c2=0.03 ** 2):
    mu_a, mu_b = local_mean(a), local_mean(b)
    var_a = local_mean(a * a) - mu_a ** 2
    var_b = local_mean(b * b) - mu_b ** 2
    cov = local_mean(a * b) - mu_a * mu_b
    num = (2 * mu_a * mu_b + c1) * (2 * cov + c2)
    den = (mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2)
    return (num / den).mean()


def loss_fn(model, noisy, clean):
    out = model(noisy)
    return 0.85 * (1 - ssim(out, clean)) + 0.15 * F.l1_loss(out, clean)


torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 3, 3, padding=1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
step = torch.compile(loss_fn)
clean = torch.rand(4, 3, 48, 48)
noisy = clean + 0.1 * torch.randn_like(clean)
for it in range(6):
    loss = step(model, noisy, clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(it, round(loss.item(), 4))
