"""Diagonal linear recurrent unit (LRU-style) sequence classifier on variable-length
sensor windows; the time dimension is marked dynamic so one graph serves every length."""
import torch
import torch.nn as nn

torch.manual_seed(0)
D_IN, D_STATE, N_CLASSES = 6, 16, 3


class LinearRecurrentClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(D_IN, D_STATE)
        self.decay_logit = nn.Parameter(torch.full((D_STATE,), 2.0))
        self.head = nn.Linear(D_STATE, N_CLASSES)

    def forward(self, x):
        a = torch.sigmoid(self.decay_logit)          # per-channel decay in (0, 1)
        u = self.inp(x)                              # (B, T, D_STATE)
        h = torch.zeros(x.size(0), D_STATE)
        for t in range(x.size(1)):
            h = a * h + (1 - a) * u[:, t]
        return self.head(h)


model = LinearRecurrentClassifier()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
compiled = torch.compile(model)

for step, length in enumerate([12, 9, 15, 10]):
    x = torch.randn(8, length, D_IN)
    y = torch.randint(0, N_CLASSES, (8,))
    torch._dynamo.maybe_mark_dynamic(x, 1)
    loss = nn.functional.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} T={length} loss {loss.item():.4f}")
