import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, DIM, CLASSES = 2000, 32, 5

features = torch.randn(N, DIM)
labels = torch.randint(0, CLASSES, (N,))
edge_src = torch.randint(0, N, (16000,))
edge_dst = torch.randint(0, N, (16000,))


class SAGE(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(2 * DIM, DIM)
        self.l2 = nn.Linear(2 * DIM, CLASSES)

    def layer(self, lin, h, src, dst, inv_deg):
        agg = torch.zeros_like(h).index_add_(0, dst, h[src]) * inv_deg[:, None]
        return lin(torch.cat([h, agg], dim=-1))

    def forward(self, h, src, dst, inv_deg):
        h = F.relu(self.layer(self.l1, h, src, dst, inv_deg))
        return self.layer(self.l2, h, src, dst, inv_deg)


model = SAGE()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
cmodel = torch.compile(model, dynamic=True)

for step in range(6):
    # a subgraph of sampled nodes, relabelled 0..n-1 in the data loader
    nodes = torch.randperm(N)[: 300 + 50 * step]
    local = torch.full((N,), -1)
    local[nodes] = torch.arange(nodes.numel())
    keep = (local[edge_src] >= 0) & (local[edge_dst] >= 0)
    src, dst = local[edge_src[keep]], local[edge_dst[keep]]
    inv_deg = 1.0 / torch.bincount(dst, minlength=nodes.numel()).clamp(min=1).float()
    out = cmodel(features[nodes], src, dst, inv_deg)
    loss = F.cross_entropy(out, labels[nodes])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} nodes {nodes.numel()} edges {src.numel()} loss {loss.item():.4f}")
