# Message passing over small graphs whose edge lists are padded to a fixed MAX_E so the
# compiled layer always sees one static shape; padding edges are marked with -1.
# Related: pytorch/pytorch#185885 (index_add with a negative index).
import torch
import torch.nn as nn

torch.manual_seed(0)
MAX_E = 12
N_NODES = 6


class MeanAggConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.msg = nn.Linear(dim, dim)
        self.upd = nn.Linear(2 * dim, dim)

    def forward(self, x, src, dst):
        m = self.msg(x)[src]
        ones = torch.ones(dst.shape[0], 1)
        agg = torch.zeros(x.shape[0], x.shape[1] + 1).index_add_(0, dst, torch.cat([m, ones], 1))
        mean = agg[:, :-1] / agg[:, -1:].clamp(min=1)
        return torch.relu(self.upd(torch.cat([x, mean], 1)))


def pad_edges(pairs):
    e = torch.full((2, MAX_E), -1, dtype=torch.long)
    e[:, : len(pairs)] = torch.tensor(pairs, dtype=torch.long).t()
    return e


graphs = {
    "chain": [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
    "star": [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 0), (2, 0)],
    "ring": [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)],
}
conv = MeanAggConv(8)
cconv = torch.compile(conv)
with torch.no_grad():
    for name, pairs in graphs.items():
        x = torch.randn(N_NODES, 8)
        src, dst = pad_edges(pairs)
        h = cconv(x, src, dst)
        print(f"{name:5s} readout {h.sum().item():.4f} last-node {h[-1].sum().item():.4f}")
