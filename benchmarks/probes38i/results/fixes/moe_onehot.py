# Switch-Transformer style top-1 MoE layer with the load-balancing auxiliary loss
# (Fedus et al. 2021): aux = E * sum_e f_e * P_e, where f_e is the fraction of tokens
# routed to expert e. The token counts are taken with torch.bincount.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
E, D, T = 4, 16, 64


class SwitchFFN(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Linear(D, E)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(D, 32), nn.GELU(), nn.Linear(32, D)) for _ in range(E))

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        gate, idx = probs.max(dim=-1)
        counts = F.one_hot(idx, E).sum(0)
        frac = counts.float() / x.shape[0]
        aux = E * (frac * probs.mean(0)).sum()
        all_out = torch.stack([expert(x) for expert in self.experts], dim=1)
        out = all_out.gather(1, idx[:, None, None].expand(-1, 1, D)).squeeze(1)
        return x + gate[:, None] * out, aux


model = SwitchFFN()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
step_fn = torch.compile(model)
data = torch.randn(T, D)
target = torch.randn(T, D)
for step in range(4):
    y, aux = step_fn(data)
    loss = F.mse_loss(y, target) + 0.01 * aux
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} aux {aux.item():.4f}")
