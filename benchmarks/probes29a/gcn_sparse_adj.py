import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, D, C = 200, 16, 4

# random graph with self loops, row-normalised, stored as a sparse COO matrix
src = torch.randint(0, N, (1200,))
dst = torch.randint(0, N, (1200,))
idx = torch.cat([torch.stack([src, dst]), torch.arange(N).repeat(2, 1)], dim=1)
adj = torch.sparse_coo_tensor(idx, torch.ones(idx.shape[1]), (N, N)).coalesce()
deg = torch.sparse.sum(adj, dim=1).to_dense()
adj = torch.sparse_coo_tensor(adj.indices(), adj.values() / deg[adj.indices()[0]], (N, N)).coalesce()


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(D, 32)
        self.lin2 = nn.Linear(32, C)

    def forward(self, x, adj):
        h = F.relu(torch.sparse.mm(adj, self.lin1(x)))
        return torch.sparse.mm(adj, self.lin2(h))


feats = torch.randn(N, D)
labels = torch.randint(0, C, (N,))
model = GCN()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(5):
    out = cmodel(feats, adj)
    loss = F.cross_entropy(out, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (out.argmax(1) == labels).float().mean().item()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {acc:.3f}")
