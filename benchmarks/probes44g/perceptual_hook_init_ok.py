"""Denoising autoencoder trained with a perceptual (feature-matching) loss.

The loss module grabs intermediate features of a frozen conv net with forward hooks that it
registers once, in __init__, before torch.compile (correct cousin of
perceptual_hook_register_in_forward.py). The loss module is compiled.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, stride=2)
        self.conv3 = nn.Conv2d(16, 16, 3, padding=1, stride=2)

    def forward(self, x):
        return self.conv3(F.relu(self.conv2(F.relu(self.conv1(x)))))


class PerceptualLoss(nn.Module):
    def __init__(self, layers=("conv1", "conv2", "conv3")):
        super().__init__()
        self.net = FeatureNet().requires_grad_(False).eval()
        self.layers = layers
        self.feats = {n: None for n in layers}
        for n in layers:
            getattr(self.net, n).register_forward_hook(self._save(n))

    def _save(self, name):
        def hook(mod, inp, out):
            self.feats[name] = out
        return hook

    def _features(self, x):
        self.net(x)
        return [self.feats[n] for n in self.layers]

    def forward(self, pred, target):
        fp = self._features(pred)
        ft = self._features(target)
        return sum(F.l1_loss(a, b) for a, b in zip(fp, ft)) + F.mse_loss(pred, target)


class DAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.dec = nn.Conv2d(16, 1, 3, padding=1)

    def forward(self, x):
        return self.dec(self.enc(x))


def main():
    torch.manual_seed(0)
    model = DAE()
    crit = torch.compile(PerceptualLoss())
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    clean = torch.rand(64, 1, 16, 16)
    for step in range(30):
        idx = torch.randint(0, 64, (16,))
        x = clean[idx]
        noisy = x + 0.2 * torch.randn_like(x)
        loss = crit(model(noisy), x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == 29:
            print(f"step {step:2d} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
