import torch
import torch.nn as nn
from torch.masked import masked_tensor

torch.manual_seed(0)


class SensorPool(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.proj = nn.Linear(channels, 16)
        self.head = nn.Linear(16, 1)

    def forward(self, readings, valid):
        h = torch.relu(self.proj(readings))
        mt = masked_tensor(h, valid.unsqueeze(-1).expand_as(h))
        pooled = mt.mean(dim=1).to_tensor(0.0)
        return self.head(pooled).squeeze(-1)


model = SensorPool().eval()
fast = torch.compile(model)
with torch.no_grad():
    for batch in range(4):
        readings = torch.randn(6, 20, 8)
        valid = torch.rand(6, 20) > 0.3
        scores = fast(readings, valid)
        print(f"batch {batch} scores {[round(s, 3) for s in scores.tolist()]}")
