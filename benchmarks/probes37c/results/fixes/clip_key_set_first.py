# Regression with occasional corrupt (NaN) inputs: a non-finite loss skips the step and
# tightens the output clip on a config object that the compiled loss reads.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Cfg:
    clip = 4.0


cfg = Cfg()
cfg.clip = 4.0  # fix #1: set the key before the first call
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def loss_fn(x, y):
    pred = model(x).clamp(-cfg.clip, cfg.clip)
    return ((pred - y) ** 2).mean()


g = torch.Generator().manual_seed(2)
skipped, last = 0, None
for step in range(16):
    x, y = torch.randn(16, 8, generator=g), torch.randn(16, 1, generator=g)
    if step % 3 == 1:
        x[0, 0] = float("nan")  # a corrupt sensor reading
    loss = loss_fn(x, y)
    if not torch.isfinite(loss):
        skipped += 1
        cfg.clip *= 0.8
        continue
    opt.zero_grad()
    loss.backward()
    opt.step()
    last = loss.item()
print("skipped", skipped, "clip", round(cfg.clip, 4), "last loss", round(last, 4))
