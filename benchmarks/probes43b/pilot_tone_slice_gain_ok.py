"""Correct cousin of pilot_tone_unfold_gain.py: the pilots are boosted through a
strided slice (`frames[:, ::PILOT_STEP]`), which torch.compile functionalizes
correctly.  Source: pytorch/pytorch#198102 (the workaround shape).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

PILOT_STEP = 5
FRAME = 40


class Denoiser(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n, 64), nn.Tanh(), nn.Linear(64, n))

    def forward(self, x):
        return x + 0.1 * self.net(x)


def boost_pilots(frames, gain):
    pilots = frames[:, ::PILOT_STEP]
    pilots.mul_(gain)
    return frames


def equalise(model, frames, gain):
    frames = boost_pilots(frames, gain)
    return model(frames)


def make_batch(n):
    t = torch.arange(FRAME, dtype=torch.float32)
    phase = torch.rand(n, 1) * 6.28
    clean = torch.sin(0.3 * t + phase)
    return clean + 0.05 * torch.randn(n, FRAME)


def main():
    model = Denoiser(FRAME).eval()
    step = torch.compile(equalise)
    gain = 2.0
    energies = []
    with torch.no_grad():
        for i in range(3):
            frames = make_batch(16)
            out = step(model, frames, gain)
            energies.append(out.pow(2).mean().item())
            print(f"batch {i}: mean energy {energies[-1]:.4f}  data-sample mean |x| "
                  f"{frames[:, 1:PILOT_STEP].abs().mean().item():.4f}")
    print(f"avg energy {sum(energies) / len(energies):.4f}")


if __name__ == "__main__":
    main()
