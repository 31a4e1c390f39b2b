# GNN readout broadcast: per-graph context vectors are expanded to their nodes with
# repeat_interleave(nodes_per_graph, output_size=...); output_size is passed to avoid a
# device sync (as the docs suggest) and was computed once from the first batch.
import torch
import torch.nn as nn

torch.manual_seed(0)


class GraphCtx(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.node = nn.Linear(d, d)
        self.ctx = nn.Linear(d, d)

    def forward(self, x, graph_feat, nodes_per_graph, total_nodes: int):
        ctx = self.ctx(graph_feat).repeat_interleave(
            nodes_per_graph, dim=0, output_size=total_nodes)
        return (torch.relu(self.node(x[: ctx.shape[0]]) + ctx)).sum(-1)


model = GraphCtx().eval()
cmodel = torch.compile(model)
first_counts = torch.tensor([3, 4, 5])
TOTAL = int(first_counts.sum())

with torch.no_grad():
    for b in range(4):
        counts = first_counts if b == 0 else torch.randint(3, 6, (3,))
        x = torch.randn(15, 8)  # node features, padded to the max batch size
        g = torch.randn(3, 8)
        out = cmodel(x, g, counts, int(counts.sum()))
        print(f"batch {b}: nodes {int(counts.sum())} out {out.shape[0]} sum {out.sum().item():.4f}")
