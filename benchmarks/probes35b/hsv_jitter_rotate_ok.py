# GPU-style batch augmentation in plain torch, compiled: RGB -> HSV, per-image hue shift and
# saturation scale, HSV -> RGB, then a per-image rotation by affine_grid + grid_sample.
# The random parameters are drawn outside the compiled function with a seeded generator.
import math
import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(0)


def rgb_to_hsv(img, eps=1e-8):
    r, gch, b = img.unbind(1)
    maxc, _ = img.max(1)
    minc, _ = img.min(1)
    delta = maxc - minc
    s = delta / (maxc + eps)
    rc, gc, bc = (maxc - r) / (delta + eps), (maxc - gch) / (delta + eps), (maxc - b) / (delta + eps)
    h = torch.where(maxc == r, bc - gc, torch.where(maxc == gch, 2.0 + rc - bc, 4.0 + gc - rc))
    h = torch.where(delta > 0, (h / 6.0) % 1.0, torch.zeros_like(h))
    return torch.stack([h, s, maxc], 1)


def hsv_to_rgb(hsv):
    h, s, v = hsv.unbind(1)
    k = torch.stack([(5 + h * 6) % 6, (3 + h * 6) % 6, (1 + h * 6) % 6], 1)
    f = v.unsqueeze(1) - (v * s).unsqueeze(1) * torch.clamp(torch.minimum(k, 4 - k), 0, 1)
    return f


@torch.compile
def augment(img, hue_shift, sat_scale, angle):
    hsv = rgb_to_hsv(img)
    h = (hsv[:, 0] + hue_shift.view(-1, 1, 1)) % 1.0
    s = (hsv[:, 1] * sat_scale.view(-1, 1, 1)).clamp(0, 1)
    rgb = hsv_to_rgb(torch.stack([h, s, hsv[:, 2]], 1))
    cos, sin = torch.cos(angle), torch.sin(angle)
    zero = torch.zeros_like(angle)
    theta = torch.stack([torch.stack([cos, -sin, zero], 1), torch.stack([sin, cos, zero], 1)], 1)
    grid = F.affine_grid(theta, list(rgb.shape), align_corners=False)
    return F.grid_sample(rgb, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


for batch in range(4):
    img = torch.rand(4, 3, 20, 20, generator=g)
    hue = (torch.rand(4, generator=g) - 0.5) * 0.2
    sat = 0.7 + 0.6 * torch.rand(4, generator=g)
    ang = (torch.rand(4, generator=g) - 0.5) * (math.pi / 6)
    out = augment(img, hue, sat, ang)
    print(f"batch {batch} mean {out.mean():.5f} std {out.std():.5f} shape {tuple(out.shape)}")
