import io

import torch
import torch.nn as nn

torch.manual_seed(0)


def make_model(n_classes):
    return nn.Sequential(
        nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
        nn.Linear(64, n_classes),
    )


# "pretraining" on a 6-class task, saved like a released checkpoint
X = torch.randn(1024, 16)
pretrained = make_model(6)
opt = torch.optim.Adam(pretrained.parameters(), lr=3e-3)
for _ in range(200):
    loss = nn.functional.cross_entropy(pretrained(X), X[:, :6].argmax(1))
    opt.zero_grad(); loss.backward(); opt.step()
buf = io.BytesIO()
torch.save(pretrained.state_dict(), buf)

# fine-tune on a related 2-class task with few labels; the head is new
model = torch.compile(make_model(2))
state = torch.load(io.BytesIO(buf.getvalue()))
state = {k: v for k, v in state.items() if not k.startswith("4.")}
model.load_state_dict(state, strict=False)

Xs = torch.randn(32, 16)
Ys = (Xs[:, :6].argmax(1) < 3).long()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(20):
    loss = nn.functional.cross_entropy(model(Xs), Ys)
    opt.zero_grad(); loss.backward(); opt.step()
Xt = torch.randn(2000, 16)
with torch.no_grad():
    acc = (model(Xt).argmax(1) == (Xt[:, :6].argmax(1) < 3).long()).float().mean()
print(f"fine-tuned on 32 labels: test accuracy {acc:.3f}")
