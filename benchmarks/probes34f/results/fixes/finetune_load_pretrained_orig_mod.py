import io

import torch
import torch.nn as nn

torch.manual_seed(0)


def build_tagger():
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))


# stands in for the checkpoint the pretraining job wrote with torch.save(model.state_dict(), ...)
pretrained = build_tagger()
checkpoint = io.BytesIO()
torch.save(pretrained.state_dict(), checkpoint)
checkpoint.seek(0)

model = torch.compile(build_tagger())
opt = torch.optim.SGD(model.parameters(), lr=0.05)

state = torch.load(checkpoint)
model._orig_mod.load_state_dict(state)
print("loaded pretrained weights")

x = torch.randn(256, 8)
y = (x[:, 0] * x[:, 1] > 0).long()
for epoch in range(5):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
