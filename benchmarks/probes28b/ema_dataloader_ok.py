"""Train a small MLP classifier from a DataLoader with a compiled model, keep an exponential
moving average of the weights (torch.optim.swa_utils.AveragedModel), and evaluate both the raw
and the averaged model at the end."""
import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

features = torch.randn(1024, 20)
targets = (features[:, :5].sum(1) > 0).long() + (features[:, 5:10].sum(1) > 0).long()
train = DataLoader(TensorDataset(features[:896], targets[:896]), batch_size=64, shuffle=True,
                   drop_last=True)
val_x, val_y = features[896:], targets[896:]

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
cmodel = torch.compile(model)
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.95))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)

for epoch in range(4):
    for xb, yb in train:
        loss = nn.functional.cross_entropy(cmodel(xb), yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        ema.update_parameters(model)
    print(f"epoch {epoch} last batch loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    raw_acc = (cmodel(val_x).argmax(1) == val_y).float().mean().item()
    ema_acc = (ema(val_x).argmax(1) == val_y).float().mean().item()
print(f"val accuracy raw {raw_acc:.3f} ema {ema_acc:.3f}")
