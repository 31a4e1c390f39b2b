"""Training with a weight EMA whose decay warms up (timm ModelEmaV3 style).

The EMA update is compiled: ema = decay * ema + (1 - decay) * param with
torch._foreach_mul_ / _foreach_add_, where decay = min(0.999, (1 + step) / (10 + step)) is
passed in a 0-d tensor.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
BATCH, STEPS, MAX_DECAY = 32, 40, 0.999


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1, stride=2)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.c2(F.relu(self.c1(x))))
        return self.head(x.mean((2, 3)))


@torch.compile
def ema_update(ema_params, model_params, decay):
    torch._foreach_mul_(ema_params, decay)
    torch._foreach_add_(ema_params, torch._foreach_mul(model_params, 1.0 - decay))


def decay_at(step):
    return min(MAX_DECAY, (1 + step) / (10 + step))


def main():
    model = ConvNet()
    ema = copy.deepcopy(model).requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ema_params = list(ema.parameters())
    model_params = list(model.parameters())
    x_val = torch.randn(64, 3, 16, 16)
    y_val = torch.randint(0, 10, (64,))
    for step in range(STEPS):
        x = torch.randn(BATCH, 3, 16, 16)
        y = (x[:, 0].mean((1, 2)) * 20).long().clamp(0, 9)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            ema_update(ema_params, model_params, torch.tensor(decay_at(step)))
        if step % 10 == 9:
            with torch.no_grad():
                ev = F.cross_entropy(ema(x_val), y_val).item()
            print(f"step {step + 1} loss {loss.item():.4f} ema val loss {ev:.4f}")


if __name__ == "__main__":
    main()
