"""Channel equaliser for a toy OFDM-like link: every 5th sample is a pilot.

The pilots are boosted in place through an `unfold` view (window 1, step 5), then
a small MLP denoises the frame.  Source: pytorch/pytorch#198102 (in-place mutation
through a gapped unfold view, step > size, zeroes the uncovered elements under
torch.compile).
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
    # one-sample windows every PILOT_STEP samples: a view of the pilot positions
    pilots = frames.unfold(1, 1, PILOT_STEP)
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
