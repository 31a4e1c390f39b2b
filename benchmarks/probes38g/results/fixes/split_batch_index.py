# Graph classification on mini-batches of small molecules: the collate function concatenates
# node features and edges (with node offsets) and passes the per-graph node counts as a Python
# list; the readout splits the node matrix back into graphs (DGL-style unbatch) and mean-pools.
import random
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)


def collate(graphs):
    xs, eis, sizes, off = [], [], [], 0
    for x, ei in graphs:
        xs.append(x)
        eis.append(ei + off)
        sizes.append(x.size(0))
        off += x.size(0)
    return torch.cat(xs), torch.cat(eis, 1), sizes


class GIN(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h))
        self.out = nn.Linear(h, 2)

    def forward(self, x, edge_index, sizes):
        src, dst = edge_index
        agg = torch.zeros_like(x).index_add_(0, dst, x[src])
        h = self.mlp(x + agg)
        ng = sizes.size(0)
        batch = torch.arange(ng).repeat_interleave(sizes, output_size=h.size(0))
        pooled = torch.zeros(ng, h.size(1)).index_add_(0, batch, h) / sizes[:, None]
        return self.out(pooled)


def molecule():
    n = random.randint(6, 12)
    return torch.randn(n, 8), torch.randint(0, n, (2, 2 * n))


dataset = [(molecule(), random.randint(0, 1)) for _ in range(64)]
model = GIN(8, 32)
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(12):
    bs = random.randint(2, 8)                       # last partial batches, bucketed loaders...
    batch = random.sample(dataset, bs)
    x, ei, sizes = collate([g for g, _ in batch])
    y = torch.tensor([t for _, t in batch])
    loss = nn.functional.cross_entropy(cmodel(x, ei, torch.tensor(sizes)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} graphs {bs} loss {loss.item():.4f}")
