import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_NODES, DIM, NUM_EDGES = 300, 32, 2400


class GCN(nn.Module):
    def __init__(self, dim, num_classes, edge_drop=0.2):
        super().__init__()
        self.lin1 = nn.Linear(dim, dim)
        self.lin2 = nn.Linear(dim, num_classes)
        self.edge_drop = edge_drop

    def propagate(self, x, src, dst):
        return torch.zeros_like(x).index_add_(0, dst, x[src]) + x

    def forward(self, x, edge_index):
        if self.training:
            keep = torch.rand(edge_index.shape[1]) >= self.edge_drop
            edge_index = edge_index[:, keep]
        src, dst = edge_index[0], edge_index[1]
        h = F.relu(self.lin1(self.propagate(x, src, dst)))
        return self.lin2(self.propagate(h, src, dst))


model = GCN(DIM, 4)
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
cmodel = torch.compile(model)

x = torch.randn(NUM_NODES, DIM)
edge_index = torch.randint(0, NUM_NODES, (2, NUM_EDGES))
labels = torch.randint(0, 4, (NUM_NODES,))

for epoch in range(8):
    loss = F.cross_entropy(cmodel(x, edge_index), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    acc = (cmodel(x, edge_index).argmax(-1) == labels).float().mean()
print(f"train accuracy {acc.item():.3f}")
