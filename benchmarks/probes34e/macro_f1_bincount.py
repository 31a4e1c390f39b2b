import torch
import torch.nn as nn

torch.manual_seed(0)
NUM_CLASSES = 5

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)


@torch.compile
def eval_step(x, y):
    pred = model(x).argmax(dim=-1)
    confusion = torch.bincount(y * NUM_CLASSES + pred, minlength=NUM_CLASSES ** 2)
    confusion = confusion.view(NUM_CLASSES, NUM_CLASSES).float()
    tp = confusion.diag()
    precision = tp / confusion.sum(0).clamp(min=1)
    recall = tp / confusion.sum(1).clamp(min=1)
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-8)
    return f1.mean(), (pred == y).float().mean()


centers = torch.randn(NUM_CLASSES, 20) * 2
y_all = torch.randint(0, NUM_CLASSES, (1024,))
x_all = centers[y_all] + torch.randn(1024, 20)
x_val, y_val = x_all[768:], y_all[768:]

for epoch in range(5):
    for i in range(0, 768, 128):
        loss = loss_fn(model(x_all[i:i + 128]), y_all[i:i + 128])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        f1, acc = eval_step(x_val, y_val)
    print(f"epoch {epoch} loss {loss.item():.4f} val acc {acc.item():.3f} macro-F1 {f1.item():.3f}")
