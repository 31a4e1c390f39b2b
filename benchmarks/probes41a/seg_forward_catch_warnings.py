"""Tiny encoder-decoder for 2-class segmentation of synthetic blobs.

The decoder upsamples with F.interpolate; the author silences a resampling
UserWarning by wrapping that call in warnings.catch_warnings() inside forward.
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinySeg(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(1, ch, 3, padding=1), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(ch, ch, 3, stride=2, padding=1), nn.ReLU())
        self.dec = nn.Sequential(nn.Conv2d(2 * ch, ch, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(ch, 2, 1)

    def forward(self, x):
        f1 = self.enc1(x)
        f2 = self.enc2(f1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            up = F.interpolate(f2, size=f1.shape[-2:], mode="bilinear", align_corners=False)
        h = self.dec(torch.cat([f1, up], dim=1))
        return self.head(h)


def make_batch(bs=8, size=32):
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    cy = torch.randint(8, size - 8, (bs, 1, 1))
    cx = torch.randint(8, size - 8, (bs, 1, 1))
    r = torch.randint(4, 8, (bs, 1, 1))
    mask = ((yy - cy) ** 2 + (xx - cx) ** 2 < r ** 2).long()
    img = mask.float().unsqueeze(1) + 0.3 * torch.randn(bs, 1, size, size)
    return img, mask


def main():
    model = TinySeg()
    cmodel = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(40):
        img, mask = make_batch()
        logits = cmodel(img)
        loss = F.cross_entropy(logits, mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:3d} loss {loss.item():.4f}")
    img, mask = make_batch()
    pred = cmodel(img).argmax(1)
    inter = ((pred == 1) & (mask == 1)).sum().item()
    union = ((pred == 1) | (mask == 1)).sum().item()
    print(f"foreground IoU {inter / max(union, 1):.3f}")


if __name__ == "__main__":
    main()
