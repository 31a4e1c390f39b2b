import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
n, n_classes = 512, 5
features = torch.randn(n, 20)
labels = torch.randint(0, n_classes, (n,))
labels[labels == 4] = torch.randint(0, 4, ((labels == 4).sum(),))
labels[:20] = 4  # rare class
counts = torch.bincount(labels, minlength=n_classes).tolist()
class_weight = [n / (n_classes * c) for c in counts]


def collate(samples):
    x = torch.stack([s[0] for s in samples])
    y = torch.stack([s[1] for s in samples])
    weights = [class_weight[int(label)] for label in y]
    return x, y, torch.tensor(weights)


model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, n_classes))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def train_loss(x, y, weights):
    logits = model(x)
    per_sample = F.cross_entropy(logits, y, reduction="none")
    w = weights
    return (per_sample * w).sum() / w.sum()


loader = DataLoader(TensorDataset(features, labels), batch_size=64, shuffle=True, collate_fn=collate)
for epoch in range(2):
    for x, y, weights in loader:
        loss = train_loss(x, y, weights)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} weighted loss {loss.item():.4f}")
