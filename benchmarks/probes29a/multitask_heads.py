import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
TASKS = ["sentiment", "topic", "lang", "toxicity", "formality", "emotion",
         "intent", "spam", "urgency", "sarcasm"]


class MultiTaskModel(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(32, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU())
        self.heads = nn.ModuleDict({t: nn.Linear(d, 3) for t in TASKS})

    def forward(self, x, task):
        return self.heads[task](self.encoder(x))


model = MultiTaskModel()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(2):
    total = 0.0
    for task in TASKS:
        x = torch.randn(32, 32)
        y = torch.randint(0, 3, (32,))
        loss = F.cross_entropy(cmodel(x, task), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} mean loss {total / len(TASKS):.4f}")
