"""Photo denoiser served at arbitrary resolutions. The service compiles with
dynamic=True so that new resolutions reuse one graph, and warms it up on a square
crop before taking requests.

After pytorch PR #186373 (fixes pytorch/pytorch#129456; diffusers PR #11327's
`use_duck_shape` note): duck sizing gives height and width one symbol when the first
input is square, so the first non-square request recompiles.
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
