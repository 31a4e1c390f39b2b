# Training loop that skips corrupt sensor batches: the model's forward asserts its input
# is finite and the loop catches AssertionError (test_repros.py / test_exceptions.py:
# Dynamo turns an `assert` on a tensor into torch._assert_async, which raises
# RuntimeError, not AssertionError).
import torch
import torch.nn as nn

torch.manual_seed(0)


class SensorNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x):
        assert torch.isfinite(x).all(), "non-finite sensor reading"
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
    try:
        loss = nn.functional.mse_loss(model(x), y)
    except AssertionError as e:
        skipped += 1
        print(f"step {step}: skipped ({e})")
        continue
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
print("skipped", skipped)
