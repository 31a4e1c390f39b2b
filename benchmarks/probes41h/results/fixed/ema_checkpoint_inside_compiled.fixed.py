"""CNN classifier training loop with an EMA copy of the weights and periodic
checkpointing.  The user compiled the per-step "bookkeeping" helper (EMA update
+ checkpoint every N steps) for speed, as well as the model.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

CKPT_DIR = tempfile.mkdtemp(prefix="ema_ckpt_")
SAVE_EVERY = 4


class SmallCNN(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, n_cls)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.relu(self.c2(x))
        return self.fc(x.mean((2, 3)))


model = SmallCNN()
ema = SmallCNN()
ema.load_state_dict(model.state_dict())
for p in ema.parameters():
    p.requires_grad_(False)


@torch.compile
def after_step(step, decay=0.99):
    with torch.no_grad():
        for pe, pm in zip(ema.parameters(), model.parameters()):
            pe.mul_(decay).add_(pm, alpha=1 - decay)


def make_batch(bs=16):
    x = torch.randn(bs, 1, 12, 12)
    y = torch.randint(0, 4, (bs,))
    x[torch.arange(bs), 0, y * 3, y * 3] += 3.0
    return x, y


def main():
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(1, 13):
        x, y = make_batch()
        loss = F.cross_entropy(cmodel(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        after_step(step)
        if step % SAVE_EVERY == 0:  # compdiag's printed fix: save in the eager code around it
            torch.save(ema.state_dict(), os.path.join(CKPT_DIR, "ema_last.pt"))
        if step % 4 == 0:
            print(f"step {step}: loss {loss.item():.3f}")
    x, y = make_batch(64)
    with torch.no_grad():
        acc = (ema(x).argmax(1) == y).float().mean().item()
    saved = torch.load(os.path.join(CKPT_DIR, "ema_last.pt"))
    print(f"ema acc {acc:.3f}; checkpoint has {len(saved)} tensors")


if __name__ == "__main__":
    main()
