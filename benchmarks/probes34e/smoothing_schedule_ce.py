import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(30, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 6))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def smoothing_for(epoch, start=0.2, end=0.0, epochs=12):
    return round(start + (end - start) * epoch / (epochs - 1), 4)


@torch.compile
def train_step(x, y):
    logits = model(x)
    loss = criterion(logits, y)
    correct = (logits.argmax(-1) == y).sum()
    return loss, correct


protos = torch.randn(6, 30)
y_all = torch.randint(0, 6, (960,))
x_all = protos[y_all] + 0.8 * torch.randn(960, 30)

for epoch in range(12):
    criterion = nn.CrossEntropyLoss(label_smoothing=smoothing_for(epoch))
    seen, hits = 0, 0
    for i in range(0, 960, 120):
        loss, correct = train_step(x_all[i:i + 120], y_all[i:i + 120])
        opt.zero_grad()
        loss.backward()
        opt.step()
        hits += int(correct)
        seen += 120
    print(f"epoch {epoch} smoothing {criterion.label_smoothing:.3f} loss {loss.item():.4f} train acc {hits / seen:.3f}")
