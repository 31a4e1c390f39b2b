"""Fine-tune a small classifier with a compiled model, save a checkpoint, then load it into a
fresh model for evaluation, as a separate evaluation job would."""
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)


def make_model():
    return nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.LayerNorm(64), nn.Linear(64, 3))


torch.compiler.set_stance("force_eager")
model = torch.compile(make_model())
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
X, y = torch.randn(256, 16), torch.randint(0, 3, (256,))
for epoch in range(5):
    loss = nn.functional.cross_entropy(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

ckpt_dir = tempfile.mkdtemp(prefix="ckpt_")
path = os.path.join(ckpt_dir, "classifier.pt")
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)
print(f"saved checkpoint {os.path.basename(path)}")

eval_model = make_model()
state = torch.load(path)
eval_model.load_state_dict(state["model"])
eval_model.eval()
with torch.no_grad():
    acc = (eval_model(X).argmax(-1) == y).float().mean().item()
print(f"restored model accuracy {acc:.3f}")
