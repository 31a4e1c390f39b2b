# SimCLR NT-Xent loss compiled with fullgraph=True, with a guard that raises on a
# non-finite loss (a common "fail fast on NaN" habit).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
proj = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 8))


def nt_xent(z1, z2, tau=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = z1.shape[0]
    sim = z @ z.t() / tau
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    loss = F.cross_entropy(sim, targets)
    if not torch.isfinite(loss):
        raise FloatingPointError(f"non-finite NT-Xent loss: {loss}")
    return loss


loss_fn = torch.compile(nt_xent)
opt = torch.optim.SGD(proj.parameters(), lr=0.05)
x = torch.randn(8, 12)
for step in range(3):
    v1 = x + 0.1 * torch.randn_like(x)
    v2 = x + 0.1 * torch.randn_like(x)
    opt.zero_grad()
    loss = loss_fn(proj(v1), proj(v2))
    loss.backward()
    opt.step()
    print(f"step {step} nt-xent {loss.item():.4f}")
