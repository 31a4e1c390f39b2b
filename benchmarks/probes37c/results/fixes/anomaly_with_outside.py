# Debugging a NaN: the user wraps the loss computation of the compiled training step in
# torch.autograd.detect_anomaly() to find which op produces it.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)


@torch.compile
def train_step(x, y):
    pred = model(x)
    loss = nn.functional.smooth_l1_loss(pred, y)
    return loss


g = torch.Generator().manual_seed(3)
for step in range(5):
    x = torch.randn(32, 16, generator=g)
    y = x[:, :1] * 0.5 + 0.1 * torch.randn(32, 1, generator=g)
    with torch.autograd.detect_anomaly():
        loss = train_step(x, y)
        opt.zero_grad()
        loss.backward()
    opt.step()
    if not torch.isfinite(loss):
        raise FloatingPointError(f"non-finite loss at step {step}")
    print(f"step {step}: loss {loss.item():.5f}")
