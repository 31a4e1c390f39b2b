"""Export a keyword-spotting front end whose forward normalizes loud clips.

`forward` branches in Python on a tensor VALUE (the clip's peak amplitude).
Eager and training work; torch.export cannot trace a data-dependent Python
branch and fails ("Could not guard on data-dependent expression"), pointing at
the `if` line.  Fix: torch.where / torch.cond, or always normalize.
Source: pytorch/pytorch#127830, #143249 (GuardOnDataDependentSymNode) and the
torch.export docs on data-dependent control flow.
"""
import torch
import torch.nn as nn
from torch.export import export

SR, CLIP = 4000, 4000
N_MELS, N_WORDS = 24, 6


class KWSFrontEnd(nn.Module):
    def __init__(self, peak_limit=0.8):
        super().__init__()
        self.peak_limit = peak_limit
        self.frame = nn.Conv1d(1, N_MELS, kernel_size=64, stride=32)
        self.body = nn.Sequential(
            nn.Conv1d(N_MELS, 32, 5, padding=2), nn.ReLU(),
            nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(),
        )
        self.head = nn.Linear(32, N_WORDS)

    def forward(self, wav):
        peak = wav.abs().amax()
        if peak > self.peak_limit:
            wav = wav * (self.peak_limit / peak)
        feats = torch.log1p(self.frame(wav.unsqueeze(1)).abs())
        h = self.body(feats).mean(dim=-1)
        return self.head(h)


def synth_batch(g, n=8):
    t = torch.arange(CLIP) / SR
    words = torch.randint(0, N_WORDS, (n,), generator=g)
    freq = 200.0 + 150.0 * words.float()
    amp = 0.3 + 0.9 * torch.rand(n, 1, generator=g)
    wav = amp * torch.sin(2 * torch.pi * freq[:, None] * t) + 0.05 * torch.randn(n, CLIP, generator=g)
    return wav, words


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    model = KWSFrontEnd()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(15):
        wav, y = synth_batch(g)
        loss = nn.functional.cross_entropy(model(wav), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"train loss after 15 steps {loss.item():.4f}")
    model.eval()
    wav, y = synth_batch(g)
    ep = export(model, (wav,))
    acc = (ep.module()(wav).argmax(-1) == y).float().mean()
    print(f"exported model accuracy on a fresh batch {acc:.3f}")


if __name__ == "__main__":
    main()
