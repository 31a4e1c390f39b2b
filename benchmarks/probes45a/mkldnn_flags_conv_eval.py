"""CPU inference for a small 1-D conv denoiser. For bit-reproducible outputs
across machines the author turns oneDNN off around the conv stack *inside*
forward with torch.backends.mkldnn.flags(enabled=False), then compiles the
model for serving.
"""
import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.inp = nn.Conv1d(1, ch, 5, padding=2)
        self.mid = nn.Conv1d(ch, ch, 5, padding=2)
        self.out = nn.Conv1d(ch, 1, 5, padding=2)

    def forward(self, x):
        with torch.backends.mkldnn.flags(enabled=False):
            h = torch.relu(self.inp(x))
            h = torch.relu(self.mid(h))
        return x - self.out(h)


def main():
    torch.manual_seed(0)
    model = Denoiser().eval()
    cmodel = torch.compile(model)
    t = torch.linspace(0, 6.28, 128)
    clean = torch.sin(t * 3).repeat(8, 1, 1)
    with torch.no_grad():
        for it in range(6):
            noisy = clean + 0.2 * torch.randn_like(clean)
            den = cmodel(noisy)
            if it % 2 == 0:
                print(f"batch {it} mse {(den - clean).pow(2).mean().item():.5f}")
    print("out shape", tuple(den.shape))


if __name__ == "__main__":
    main()
