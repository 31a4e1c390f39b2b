"""Periodic validation of a small classifier during training: the model is trained in eager
mode, and each validation pass compiles the model for fast inference."""
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 8))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
train_x, train_y = torch.randn(512, 64), torch.randint(0, 8, (512,))
val_x, val_y = torch.randn(128, 64), torch.randint(0, 8, (128,))


def validate(model):
    fast_model = torch.compile(model, mode="max-autotune-no-cudagraphs")
    model.eval()
    with torch.no_grad():
        acc = (fast_model(val_x).argmax(-1) == val_y).float().mean().item()
    model.train()
    return acc


for epoch in range(10):
    for i in range(0, 512, 128):
        loss = nn.functional.cross_entropy(model(train_x[i:i + 128]), train_y[i:i + 128])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f} val acc {validate(model):.3f}")
