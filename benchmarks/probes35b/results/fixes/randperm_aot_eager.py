# Mixup inside a compiled train step: partners drawn with torch.randperm, as in the mixup
# paper's reference code (facebookresearch/mixup-cifar10: index = torch.randperm(batch_size)).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyNet(nn.Module):
    def __init__(self, n_cls=5):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8, n_cls)

    def forward(self, x):
        return self.head(F.relu(self.conv(x)).mean((2, 3)))


model = TinyNet()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
beta = torch.distributions.Beta(torch.tensor(0.4), torch.tensor(0.4))


def mixup_loss(x, y, lam):
    idx = torch.randperm(x.size(0))
    mixed = lam * x + (1 - lam) * x[idx]
    out = model(mixed)
    return lam * F.cross_entropy(out, y) + (1 - lam) * F.cross_entropy(out, y[idx])


step = torch.compile(mixup_loss, backend="aot_eager")

for it in range(4):
    x = torch.rand(8, 3, 16, 16)
    y = torch.randint(0, 5, (8,))
    lam = beta.sample()
    loss = step(x, y, lam)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {it} lam {lam.item():.3f} loss {loss.item():.4f}")
