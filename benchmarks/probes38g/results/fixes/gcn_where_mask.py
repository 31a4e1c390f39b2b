# GCN layer with PyG-style gcn_norm: drop existing self-loops, add one per node, symmetric
# degree normalisation, scatter-add aggregation. Node features from a citation-like graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


def gcn_norm(edge_index, num_nodes):
    mask = edge_index[0] != edge_index[1]
    loop = torch.arange(num_nodes).repeat(2, 1)
    keep = torch.cat([mask, torch.ones(num_nodes, dtype=torch.bool)])
    edge_index = torch.cat([edge_index, loop], dim=1)     # add_self_loops
    row, col = edge_index
    ew = torch.where(keep, 1.0, 0.0)                      # self-loops of the data weigh 0
    deg = torch.zeros(num_nodes).index_add_(0, col, ew)
    dinv = deg.rsqrt()
    return edge_index, dinv[row] * dinv[col] * ew


class GCN(nn.Module):
    def __init__(self, din, dh, dout):
        super().__init__()
        self.l1, self.l2 = nn.Linear(din, dh), nn.Linear(dh, dout)

    def prop(self, x, edge_index, w):
        row, col = edge_index
        return torch.zeros_like(x).index_add_(0, col, x[row] * w[:, None])

    def forward(self, x, edge_index):
        ei, w = gcn_norm(edge_index, x.size(0))
        h = torch.relu(self.prop(self.l1(x), ei, w))
        return self.prop(self.l2(h), ei, w)


N, E = 40, 160
x = torch.randn(N, 16)
edge_index = torch.randint(0, N, (2, E))
edge_index[:, :5] = torch.arange(5)                   # a few self-loops in the raw data
y = torch.randint(0, 3, (N,))
model = GCN(16, 32, 3)
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    loss = nn.functional.cross_entropy(cmodel(x, edge_index), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
