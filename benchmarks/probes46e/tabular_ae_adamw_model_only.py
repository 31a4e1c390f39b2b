"""Denoising autoencoder for tabular sensor data, trained on the CPU.

The user compiled the model (the usual `model = torch.compile(model)`), but the
step time hardly moves: AdamW on CPU tensors defaults to its per-parameter
Python loop (foreach/fused are only picked by default for CUDA), and with 100+
small parameters that eager optimizer step is a large share of every step.
Set PROBE_TIME=1 to print eager vs compiled step times to stderr.
"""
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

N_FEAT, WIDTH, DEPTH = 24, 32, 20


class ResidualBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return x + F.gelu(self.fc(self.norm(x)))


class DenoisingAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(N_FEAT, WIDTH)
        self.blocks = nn.Sequential(*[ResidualBlock(WIDTH) for _ in range(DEPTH)])
        self.out = nn.Linear(WIDTH, N_FEAT)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


def make_batch(gen, n=16):
    clean = torch.randn(n, N_FEAT, generator=gen).cumsum(-1) / 4
    noisy = clean + 0.3 * torch.randn(n, N_FEAT, generator=gen)
    return noisy, clean


def train(model, steps, seed=1):
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    losses, t0 = [], None
    for step in range(steps):
        if step == 5:
            t0 = time.process_time()
        noisy, clean = make_batch(gen)
        opt.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(noisy), clean)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, (time.process_time() - t0) / (steps - 5)


def main():
    steps = 60
    torch.manual_seed(0)
    eager_model = DenoisingAE()
    torch.manual_seed(0)
    model = torch.compile(DenoisingAE())
    eager_losses, t_eager = train(eager_model, steps)
    losses, t_comp = train(model, steps)
    print(f"params: {sum(p.numel() for p in model.parameters())} in {len(list(model.parameters()))} tensors")
    print(f"compiled loss: first {losses[0]:.3f} last {losses[-1]:.3f}")
    print(f"eager    loss: first {eager_losses[0]:.3f} last {eager_losses[-1]:.3f}")
    if os.environ.get("PROBE_TIME"):
        print(f"step ms eager {t_eager*1e3:.2f} compiled {t_comp*1e3:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
