"""Activity recognition from accelerometer recordings of different lengths: each batch is a
list of recordings, padded and mean-pooled inside the compiled encoder."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
ACTIVITIES = 5


class ActivityNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.frame = nn.Sequential(nn.Linear(3, 32), nn.GELU(), nn.Linear(32, 32))
        self.cls = nn.Linear(32, ACTIVITIES)

    def forward(self, recordings):
        x = pad_sequence(recordings, batch_first=True)  # (B, T_max, 3)
        valid = (x.abs().sum(-1, keepdim=True) > 0).float()
        pooled = (self.frame(x) * valid).sum(1) / valid.sum(1).clamp(min=1)
        return self.cls(pooled)


model = ActivityNet()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for batch_idx in range(10):
    lengths = torch.randint(40, 120, (4,)).tolist()
    recordings = [torch.randn(n, 3) for n in lengths]
    labels = torch.randint(0, ACTIVITIES, (4,))
    loss = nn.functional.cross_entropy(compiled(recordings), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"batch {batch_idx} lengths {lengths} loss {loss.item():.3f}")
