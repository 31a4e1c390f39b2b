"""Train a small tabular classifier with torch.compile, then export it to
TorchScript for the C++ serving side."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))
model = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

x = torch.randn(256, 10)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
for epoch in range(5):
    model.train()
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    acc = (model(x).argmax(1) == y).float().mean().item()
print(f"train accuracy {acc:.3f}")

example = torch.randn(1, 10)
scripted = torch.jit.trace(model, example)
scripted.save("/tmp/p34c/tabular_classifier.pt")
print("exported /tmp/p34c/tabular_classifier.pt")
