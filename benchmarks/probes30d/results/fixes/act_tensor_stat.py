import torch
import torch.nn as nn

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, d_in=64, hidden=128, n_cls=10):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


model = MLP()
dead_frac = {}


def track_dead_units(name):
    def hook(module, inputs, output):
        dead_frac.setdefault(name, []).append((output == 0).float().mean().detach())
    return hook


for name, mod in model.body.named_children():
    if isinstance(mod, nn.ReLU):
        mod.register_forward_hook(track_dead_units(f"relu{name}"))

compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
data = torch.randn(512, 64)
labels = (data[:, :10].argmax(dim=1))

for step in range(8):
    idx = torch.randint(0, 512, (64,))
    loss = nn.functional.cross_entropy(compiled(data[idx]), labels[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 0:
        print(f"step {step} loss {loss.item():.4f}")

for name, vals in dead_frac.items():
    print(f"{name}: dead fraction {torch.stack(vals).mean().item():.3f} over {len(vals)} batches")
