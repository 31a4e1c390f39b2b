import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DIM, HEADS = 16, 4


class GATLayer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.lin = nn.Linear(dim, dim, bias=False)
        self.att_src = nn.Parameter(torch.randn(heads, self.dh) * 0.1)
        self.att_dst = nn.Parameter(torch.randn(heads, self.dh) * 0.1)

    def forward(self, x, src, dst):
        n = x.shape[0]
        h = self.lin(x).view(n, self.heads, self.dh)
        score = F.leaky_relu((h * self.att_src).sum(-1)[src] + (h * self.att_dst).sum(-1)[dst], 0.2)
        idx = dst[:, None].expand_as(score)
        smax = torch.full((n, self.heads), float("-inf")).scatter_reduce(0, idx, score, "amax", include_self=False)
        w = torch.exp(score - smax[dst])
        denom = torch.zeros(n, self.heads).index_add_(0, dst, w)
        alpha = w / denom[dst]
        out = torch.zeros_like(h).index_add_(0, dst, alpha[..., None] * h[src])
        return F.elu(out.reshape(n, -1))


model = nn.ModuleDict({"gat": GATLayer(DIM, HEADS), "cls": nn.Linear(DIM, 3)})
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
gat = torch.compile(model["gat"])

for step in range(6):
    n = 60 + 10 * step
    x = torch.randn(n, DIM)
    loops = torch.arange(n)
    src = torch.cat([torch.randint(0, n, (5 * n,)), loops])
    dst = torch.cat([torch.randint(0, n, (5 * n,)), loops])
    y = torch.randint(0, 3, (n,))
    loss = F.cross_entropy(model["cls"](gat(x, src, dst)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"graph {step} nodes {n} edges {src.numel()} loss {loss.item():.4f}")
