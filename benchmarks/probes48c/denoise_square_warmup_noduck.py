"""Photo denoiser served at arbitrary resolutions. The service compiles with
dynamic=True so that new resolutions reuse one graph, and warms it up on a square
crop before taking requests.

Clean cousin of denoise_square_warmup_duck.py (pytorch PR #186373, pytorch/pytorch#129456):
duck sizing is turned off before the warm-up, as diffusers PR #11327 advises, so
height and width get their own symbols and no request recompiles.
"""
import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, c, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(c, c, 3, padding=1), nn.ReLU())
        self.dec = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, noisy):
        residual = self.dec(self.enc(noisy))
        return (noisy - residual).clamp(0, 1)


def main():
    torch.fx.experimental._config.use_duck_shape = False
    torch.manual_seed(0)
    model = Denoiser().eval()
    compiled = torch.compile(model, dynamic=True)
    with torch.no_grad():
        compiled(torch.rand(1, 3, 64, 64))                # warm-up on a square crop
        for h, w in [(48, 80), (96, 64), (40, 72), (64, 64)]:
            noisy = torch.rand(1, 3, h, w)
            out = compiled(noisy)
            print(f"{h}x{w}: mean {out.mean().item():.4f}")


if __name__ == "__main__":
    main()
