"""Alternating two-loss training (reconstruction phase / regularisation phase).

Correct cousin of alt_phase_identity_branch.py: the schedule flips outside the
compiled loss and the phase goes in as a plain bool argument.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class PhaseSchedule:
    def __init__(self):
        self.recon = object()
        self.reg = object()
        self.active = self.recon

    def name(self):
        return "recon" if self.active is self.recon else "reg"

    def advance(self):
        self.active = self.reg if self.active is self.recon else self.recon


class AutoEncoder(nn.Module):
    def __init__(self, d=16, h=4):
        super().__init__()
        self.enc = nn.Linear(d, h)
        self.dec = nn.Linear(h, d)

    def forward(self, x):
        z = torch.tanh(self.enc(x))
        return z, self.dec(z)


def phase_loss(model, x, in_recon: bool):
    z, xr = model(x)
    if in_recon:
        return ((xr - x) ** 2).mean()
    return 0.1 * z.abs().mean()


def main():
    model = AutoEncoder()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    sched = PhaseSchedule()
    loss_fn = torch.compile(phase_loss)
    data = torch.randn(64, 16)
    history = {"recon": [], "reg": []}
    for step in range(8):
        batch = data[(step % 4) * 16:(step % 4 + 1) * 16]
        phase = sched.name()
        loss = loss_fn(model, batch, phase == "recon")
        sched.advance()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history[phase].append(round(loss.item(), 4))
    print("recon losses:", history["recon"])
    print("reg losses:", history["reg"])
    print("final phase:", sched.name())


if __name__ == "__main__":
    main()
