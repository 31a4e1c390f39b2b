# Training loop that skips corrupt sensor batches, the finiteness check done outside the
# compiled model (cousin of sensor_batch_assert_skip.py).
import torch
import torch.nn as nn

torch.manual_seed(0)


class SensorNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


model = torch.compile(SensorNet())
opt = torch.optim.Adam(model.parameters(), lr=1e-2)

batches = []
for i in range(8):
    x = torch.randn(32, 12)
    if i in (3, 6):
        x[5, 2] = float("nan")  # a dropped sensor packet
    batches.append((x, x[:, :3].sum(-1)))

skipped = 0
for step, (x, y) in enumerate(batches):
    if not torch.isfinite(x).all():
        skipped += 1
        print(f"step {step}: skipped (non-finite sensor reading)")
        continue
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
print("skipped", skipped)
