import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 4


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, NUM_CLASSES))

    def forward(self, x):
        return self.net(x)


@torch.compile
def weighted_ce(logits, target, class_weights):
    w = class_weights.to(logits.dtype)
    return F.cross_entropy(logits, target, weight=w)


def inverse_frequency(preds):
    counts = torch.bincount(preds, minlength=NUM_CLASSES).float() + 1.0
    inv = counts.sum() / counts
    return [round(float(v), 3) for v in inv / inv.sum() * NUM_CLASSES]


model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(256, 16)
y = (x[:, 0] > 0).long() + 2 * (x[:, 1] > 0.8).long()

class_weights = [1.0] * NUM_CLASSES
for epoch in range(12):
    for i in range(0, 256, 64):
        logits = model(x[i:i + 64])
        loss = weighted_ce(logits, y[i:i + 64], torch.tensor(class_weights))
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        class_weights = inverse_frequency(model(x).argmax(-1))
    print(f"epoch {epoch} loss {loss.item():.4f} weights {class_weights}")
