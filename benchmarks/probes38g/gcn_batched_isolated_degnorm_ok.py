# Batched GCN over several small graphs (node offsets added to each graph's edge_index),
# some nodes isolated; symmetric normalisation D^-1/2 A D^-1/2 with degree 0 mapped to 0
# (PyG's masked_fill of inf). Trains an eager copy and a compiled copy 3 steps; compares.
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)


def batch_graphs(sizes, edges_per_node=2):
    eis, off = [], 0
    for n in sizes:
        m = n * edges_per_node
        ei = torch.randint(0, n - 2, (2, m))        # the last 2 nodes of every graph are isolated
        eis.append(ei + off)
        off += n
    return torch.cat(eis, 1), torch.arange(len(sizes)).repeat_interleave(torch.tensor(sizes))


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(8, 16), nn.Linear(16, 3)

    def prop(self, h, edge_index, num_graphs, batch):
        row, col = edge_index
        deg = torch.zeros(h.size(0)).scatter_add_(0, col, torch.ones(col.size(0)))
        dinv = deg.pow(-0.5).masked_fill(deg == 0, 0.0)
        msg = h[row] * (dinv[row] * dinv[col])[:, None]
        return torch.zeros_like(h).index_add_(0, col, msg) + h * dinv[:, None] ** 2

    def forward(self, x, edge_index, batch, num_graphs):
        h = torch.relu(self.prop(self.l1(x), edge_index, num_graphs, batch))
        h = self.prop(self.l2(h), edge_index, num_graphs, batch)
        out = torch.zeros(num_graphs, h.size(1)).index_add_(0, batch, h)
        cnt = torch.zeros(num_graphs).index_add_(0, batch, torch.ones(batch.size(0)))
        return out / cnt.clamp(min=1)[:, None]


sizes = [7, 5, 9, 6]
edge_index, batch = batch_graphs(sizes)
x = torch.randn(sum(sizes), 8)
y = torch.tensor([0, 2, 1, 0])
m_e = GCN()
m_c = copy.deepcopy(m_e)
cm = torch.compile(m_c)
opt_e = torch.optim.SGD(m_e.parameters(), lr=0.1)
opt_c = torch.optim.SGD(m_c.parameters(), lr=0.1)
for step in range(3):
    for m, opt in ((m_e, opt_e), (cm, opt_c)):
        loss = nn.functional.cross_entropy(m(x, edge_index, batch, len(sizes)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    diff = max((a - b).abs().max().item() for a, b in zip(m_e.parameters(), m_c.parameters()))
    print(f"step {step} loss {loss.item():.4f} max param diff {diff:.1e}")
