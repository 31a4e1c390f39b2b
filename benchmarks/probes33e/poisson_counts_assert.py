import torch
import torch.nn as nn
from torch.distributions import Poisson

torch.manual_seed(0)


class CountModel(nn.Module):
    def __init__(self, n_features=8):
        super().__init__()
        self.linear = nn.Linear(n_features, 1)

    def forward(self, x):
        return self.linear(x).squeeze(-1).clamp(max=10).exp()


def poisson_nll(model, x, counts):
    assert (counts >= 0).all(), "negative count in batch"
    rate = model(x)
    return -Poisson(rate).log_prob(counts).mean()


true_w = torch.randn(8) * 0.3
features = torch.randn(1024, 8)
counts = torch.poisson((features @ true_w).exp())
counts[300] = -1.0  # a sensor dropout logged with the -1 sentinel

model = CountModel()
loss_fn = torch.compile(poisson_nll)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
skipped = 0
for epoch in range(4):
    for xb, cb in zip(features.split(128), counts.split(128)):
        try:
            loss = loss_fn(model, xb, cb)
        except AssertionError:
            skipped += 1
            continue
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} nll {loss.item():.4f}")
print(f"skipped {skipped} bad batches; weight error {(model.linear.weight.squeeze() - true_w).norm().item():.3f}")
