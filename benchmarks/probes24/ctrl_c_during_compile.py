"""Training script with the usual Ctrl-C handler (save a checkpoint, then re-raise). The user
loses patience during the first step, which is still compiling a 24-block model, and presses
Ctrl-C (the probe sends SIGINT from outside: `timeout -s INT 15 ...`)."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))


model = nn.Sequential(*[Block(64) for _ in range(24)])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
compiled = torch.compile(model)


def train(steps):
    for step in range(steps):
        x = torch.randn(32, 64)
        loss = compiled(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print("step", step, loss.item())


try:
    train(100)
except KeyboardInterrupt:
    torch.save(model.state_dict(), "/tmp/p24/ctrl_c_checkpoint.pt")
    print("interrupted: checkpoint saved")
    raise
