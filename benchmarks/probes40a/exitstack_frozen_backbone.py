# Linear-probe fine-tuning with an optionally frozen backbone. The freeze is applied
# through contextlib.ExitStack, the way Lightning Fabric builds optional contexts
# (pytorch/pytorch#109309, Lightning-AI/pytorch-lightning#18557).
import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self, d_in=32, d=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d), nn.GELU(), nn.Linear(d, d), nn.GELU())

    def forward(self, x):
        return self.net(x)


class Classifier(nn.Module):
    def __init__(self, n_cls=5, freeze_backbone=True):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Linear(64, n_cls)
        self.freeze_backbone = freeze_backbone

    def forward(self, x):
        with contextlib.ExitStack() as stack:
            if self.freeze_backbone:
                stack.enter_context(torch.no_grad())
            feats = self.backbone(x)
        return self.head(feats)


model = Classifier()
for p in model.backbone.parameters():
    p.requires_grad_(False)
opt = torch.optim.AdamW(model.head.parameters(), lr=1e-2)
cmodel = torch.compile(model)

X = torch.randn(256, 32)
y = X[:, :5].argmax(1)
for epoch in range(3):
    for i in range(0, 256, 64):
        logits = cmodel(X[i:i + 64])
        loss = F.cross_entropy(logits, y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

with torch.no_grad():
    acc = (cmodel(X).argmax(1) == y).float().mean().item()
print(f"train acc {acc:.3f}")
