# Not a fix: checks the accuracy verdict of dense_top2_moe_ok. Prints float32-vs-float64 relative error of the loss with and without the jitter draw.
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



def train_step(x, labels):
    h, aux = moe(x)
    return F.cross_entropy(head(h), labels) + 0.01 * aux, aux


import copy
x = torch.randn(64, 32); labels = (x[:, 0] > 0).long()
for jitter in (True, False):
    moe.train(jitter)
    torch.manual_seed(1); l32, _ = train_step(x, labels)
    m64, h64 = copy.deepcopy(moe).double(), copy.deepcopy(head).double()
    torch.manual_seed(1)
    hh, aux = m64(x.double()); l64 = F.cross_entropy(h64(hh), labels) + 0.01 * aux
    print("jitter" if jitter else "no jitter", "rel err float32 vs float64:", abs(l32.item() - l64.item()) / abs(l64.item()))
