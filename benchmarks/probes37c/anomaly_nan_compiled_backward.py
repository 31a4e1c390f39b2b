# A distance-based loss whose gradient is NaN when two embeddings coincide; the user runs
# under detect_anomaly to find the op whose backward returns NaN.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)

enc = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))


def pair_loss(a, b):
    za, zb = enc(a), enc(b)
    dist = ((za - zb) ** 2).sum(-1).sqrt()  # sqrt'(0) = inf -> NaN grad for identical pairs
    return torch.relu(1.0 - dist).mean()


loss_c = torch.compile(pair_loss)
g = torch.Generator().manual_seed(4)
a = torch.randn(5, 6, generator=g)
b = torch.randn(5, 6, generator=g)
b[2] = a[2]  # a duplicate pair in the batch
loss = loss_c(a, b)
print("loss", round(loss.item(), 5))
try:
    loss.backward()
except RuntimeError as e:
    print("anomaly:", str(e).splitlines()[0])
    raise SystemExit(3)
print("grad ok")
