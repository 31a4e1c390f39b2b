"""A correct CPU training loop: a small conv net compiled with torch.compile, AdamW with a
OneCycleLR schedule, the forward and loss under torch.autocast("cpu", dtype=torch.bfloat16),
gradient clipping, and an eval pass under torch.no_grad at the end. Nothing is wrong."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


model = Net()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
steps = 6
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=steps + 1)
X, Y = torch.randn(steps, 16, 1, 12, 12), torch.randint(0, 10, (steps, 16))
model.train()
for i in range(steps):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(cmodel(X[i]), Y[i])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    print(f"step {i} loss {loss.item():.3f} lr {sched.get_last_lr()[0]:.5f}")
model.eval()
with torch.no_grad():
    acc = (cmodel(X[0]).argmax(1) == Y[0]).float().mean().item()
print(f"train-batch accuracy {acc:.3f}")
