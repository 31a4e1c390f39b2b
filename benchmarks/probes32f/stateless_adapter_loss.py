# Adapter tuning written functionally: the backbone's weights stay in the module,
# the adapter weights live in a dict that the optimizer updates.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import stateless

torch.manual_seed(0)


class AdapterMLP(nn.Module):
    def __init__(self, dim=48, bottleneck=8, classes=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.down = nn.Linear(dim, bottleneck)
        self.up = nn.Linear(bottleneck, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        h = self.backbone(x)
        h = h + self.up(F.relu(self.down(h)))
        return self.head(h)


model = AdapterMLP()
adapter = {name: p.detach().clone().requires_grad_(True)
           for name, p in model.named_parameters() if not name.startswith("backbone.")}
opt = torch.optim.Adam(adapter.values(), lr=5e-3)


@torch.compile
def adapter_loss(params, x, y):
    logits = stateless.functional_call(model, params, (x,))
    return F.cross_entropy(logits, y)


x_all = torch.randn(512, 48)
y_all = (x_all[:, :5] - x_all[:, 5:10]).argmax(1)
for epoch in range(4):
    for i in range(0, 512, 128):
        loss = adapter_loss(adapter, x_all[i:i + 128], y_all[i:i + 128])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
