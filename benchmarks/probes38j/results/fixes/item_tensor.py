# Compiled forward+loss that also counts correct predictions with .item() (tutorial pattern:
# `correct += (pred == y).sum().item()`), backward and optimizer step in eager.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def forward_loss(x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y, label_smoothing=0.05)
    correct = (logits.argmax(dim=1) == y).sum()
    return loss, correct


X = torch.randn(64, 16)
Y = (X[:, :5].argmax(dim=1) + (X[:, 5] > 1).long()) % 5
for epoch in range(3):
    total, correct = 0.0, 0
    for i in range(0, 64, 16):
        opt.zero_grad()
        loss, c = forward_loss(X[i:i + 16], Y[i:i + 16])
        loss.backward()
        opt.step()
        total += loss.item()
        correct += c.item()
    print(f"epoch {epoch} loss {total / 4:.4f} acc {correct / 64:.3f}")
