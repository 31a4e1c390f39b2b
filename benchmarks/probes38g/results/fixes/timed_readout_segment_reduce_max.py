# Batched graph regression: message passing with scatter-add, then a per-graph max readout
# with torch.segment_reduce over the contiguous node blocks of each graph (lengths = nodes
# per graph), as in the segment-reduction docs. Fixed batch shape: one compile, no breaks.
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
G, n, H = 64, 24, 64                                   # graphs per batch, nodes per graph


class MPNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, H)
        self.msg = nn.Linear(H, H)
        self.head = nn.Linear(H, 1)

    def forward(self, x, edge_index, lengths):
        h = torch.relu(self.inp(x))
        src, dst = edge_index
        for _ in range(3):
            agg = torch.zeros_like(h).index_add_(0, dst, self.msg(h)[src])
            h = torch.relu(h + agg)
        pooled = torch.segment_reduce(h, "max", lengths=lengths)
        return self.head(pooled).squeeze(1)


offs = torch.arange(G).repeat_interleave(3 * n) * n
edge_index = torch.randint(0, n, (2, G * 3 * n)) + offs
x = torch.randn(G * n, 8)
lengths = torch.full((G,), n)
model = MPNN().eval()
cmodel = torch.compile(model)
with torch.no_grad():
    out = cmodel(x, edge_index, lengths)
    print("pred", [round(v, 4) for v in out[:4].tolist()])
    print("max |compiled - eager|", f"{(out - model(x, edge_index, lengths)).abs().max().item():.2e}")
    t0 = time.perf_counter()
    for _ in range(20):
        cmodel(x, edge_index, lengths)
    print("ms", (time.perf_counter()-t0)/20*1e3); t0=time.perf_counter(); [model(x, edge_index, lengths) for _ in range(20)]; print("eager ms", (time.perf_counter()-t0)/20*1e3)
