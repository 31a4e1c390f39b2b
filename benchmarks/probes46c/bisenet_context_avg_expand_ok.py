"""BiSeNetV1-style context path trained on CPU with torch.compile (expand variant).

Scaled-down copy of CoinCheung/BiSeNet lib/models/bisenetv1.py (ContextPath):
the global-average context vector is upsampled with F.interpolate(mode='nearest')
back to the 1/32 feature size and added to the attention-refined features.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ConvBNReLU(nn.Sequential):
    def __init__(self, cin, cout, ks=3, stride=1, padding=1):
        super().__init__(nn.Conv2d(cin, cout, ks, stride, padding, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class AttentionRefinementModule(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = ConvBNReLU(cin, cout)
        self.conv_atten = nn.Conv2d(cout, cout, 1, bias=False)
        self.bn_atten = nn.BatchNorm2d(cout)

    def forward(self, x):
        feat = self.conv(x)
        atten = F.avg_pool2d(feat, feat.size()[2:])
        atten = torch.sigmoid(self.bn_atten(self.conv_atten(atten)))
        return torch.mul(feat, atten)


class ContextPath(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage8 = nn.Sequential(ConvBNReLU(3, 16, stride=2), ConvBNReLU(16, 16, stride=2),
                                    ConvBNReLU(16, 24, stride=2))
        self.stage16 = ConvBNReLU(24, 32, stride=2)
        self.stage32 = ConvBNReLU(32, 48, stride=2)
        self.arm16 = AttentionRefinementModule(32, 32)
        self.arm32 = AttentionRefinementModule(48, 32)
        self.conv_head32 = ConvBNReLU(32, 32)
        self.conv_avg = ConvBNReLU(48, 32, ks=1, padding=0)

    def forward(self, x):
        feat8 = self.stage8(x)
        feat16 = self.stage16(feat8)
        feat32 = self.stage32(feat16)
        H16, W16 = feat16.size()[2:]
        H32, W32 = feat32.size()[2:]

        avg = F.avg_pool2d(feat32, feat32.size()[2:])
        avg = self.conv_avg(avg)
        avg_up = avg.expand(-1, -1, H32, W32)  # 1x1 -> HxW: same values as nearest upsampling

        feat32_sum = self.arm32(feat32) + avg_up
        feat32_up = F.interpolate(feat32_sum, (H16, W16), mode="nearest")
        feat32_up = self.conv_head32(feat32_up)
        return self.arm16(feat16) + feat32_up


class TinyBiSeNet(nn.Module):
    def __init__(self, n_classes=6):
        super().__init__()
        self.cp = ContextPath()
        self.conv_out = nn.Conv2d(32, n_classes, 1)

    def forward(self, x):
        out = self.conv_out(self.cp(x))
        return F.interpolate(out, x.shape[-2:], mode="bilinear", align_corners=True)


def main():
    model = TinyBiSeNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=5e-4)
    cmodel = torch.compile(model)
    images = torch.rand(4, 3, 128, 128)
    labels = torch.randint(0, 6, (4, 128, 128))
    for step in range(3):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(cmodel(images), labels)
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")
    print("done")


if __name__ == "__main__":
    main()
