import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TwoTower(nn.Module):
    def __init__(self, vocab=300, dim=32):
        super().__init__()
        self.image = nn.Sequential(nn.Linear(96, 128), nn.GELU(), nn.Linear(128, dim))
        self.text = nn.EmbeddingBag(vocab, 64, mode="mean")
        self.text_proj = nn.Linear(64, dim)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, images, tokens):
        img = F.normalize(self.image(images), dim=-1)
        txt = F.normalize(self.text_proj(self.text(tokens)), dim=-1)
        logits = self.logit_scale.exp() * img @ txt.T
        labels = torch.arange(images.shape[0])
        return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2


images = torch.randn(200, 96)
tokens = torch.randint(0, 300, (200, 12))
model = TwoTower()
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)

for epoch in range(3):
    perm = torch.randperm(200)
    for i in range(0, 200, 64):
        idx = perm[i:i + 64]
        loss = compiled(images[idx], tokens[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(100))
    print(f"epoch {epoch} last batch {len(idx)} loss {loss.item():.4f} scale {model.logit_scale.exp().item():.2f}")
