"""Train a small top-2 MoE classifier the compile-friendly way: every expert runs on every
token and the top-2 gates (zero elsewhere) weight the results. Router jitter noise during
training and a load-balancing auxiliary loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class DenseTop2MoE(nn.Module):
    def __init__(self, dim=32, hidden=64, num_experts=4, jitter=0.01):
        super().__init__()
        self.num_experts, self.jitter = num_experts, jitter
        self.router = nn.Linear(dim, num_experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(num_experts, dim, hidden) / dim ** 0.5)
        self.w2 = nn.Parameter(torch.randn(num_experts, hidden, dim) / hidden ** 0.5)

    def forward(self, x):
        if self.training:
            x = x * torch.empty_like(x).uniform_(1 - self.jitter, 1 + self.jitter)
        probs = F.softmax(self.router(x), dim=-1)
        top_p, top_i = probs.topk(2, dim=-1)
        gates = torch.zeros_like(probs).scatter(-1, top_i, top_p / top_p.sum(-1, keepdim=True))
        h = F.silu(torch.einsum("td,edh->teh", x, self.w1))
        y = torch.einsum("teh,ehd,te->td", h, self.w2, gates)
        load = F.one_hot(top_i[:, 0], self.num_experts).float().mean(0)
        aux_loss = self.num_experts * (load * probs.mean(0)).sum()
        return x + y, aux_loss


moe = DenseTop2MoE()
head = nn.Linear(32, 3)
params = list(moe.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=3e-3)


@torch.compile
def train_step(x, labels):
    h, aux = moe(x)
    return F.cross_entropy(head(h), labels) + 0.01 * aux, aux


for step in range(8):
    x = torch.randn(64, 32)
    labels = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
    loss, aux = train_step(x, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} aux {aux.item():.4f}")
