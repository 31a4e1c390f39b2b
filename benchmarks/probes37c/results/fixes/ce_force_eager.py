# A training loop that skips malformed batches: F.cross_entropy raises ValueError when the
# label count does not match the batch, and the loop catches ValueError to skip the batch.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def compute_loss(x, y):
    logits = model(x)
    return F.cross_entropy(logits, y)


def batches():
    g = torch.Generator().manual_seed(1)
    for i in range(6):
        x = torch.randn(8, 12, generator=g)
        y = torch.randint(0, 4, (8,), generator=g)
        if i == 3:
            y = y[:7]  # a corrupted record: one label missing
        yield x, y


torch.compiler.set_stance("force_eager")
skipped = 0
for step, (x, y) in enumerate(batches()):
    try:
        loss = compute_loss(x, y)
    except ValueError as e:
        skipped += 1
        print(f"step {step}: skipped malformed batch ({e})")
        continue
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
print("skipped", skipped)
