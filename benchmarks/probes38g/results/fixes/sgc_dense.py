# SGC (simplified graph convolution): K-step propagation with a normalised sparse adjacency
# built from edge_index with torch.sparse_coo_tensor and applied with torch.sparse.mm, then a
# linear classifier. Compiled with fullgraph=True to be sure the whole step is one graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
N, E, F, C, K = 60, 240, 16, 4, 2


class SGC(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(F, C)

    def forward(self, x, edge_index):
        row, col = edge_index
        deg = torch.zeros(N).index_add_(0, row, torch.ones(row.numel())).clamp(min=1)
        w = deg[row].rsqrt() * deg[col].rsqrt()
        adj = torch.zeros(N, N).index_put_((row, col), w, accumulate=True)
        for _ in range(K):
            x = adj @ x
        return self.lin(x)


x = torch.randn(N, F)
edge_index = torch.randint(0, N, (2, E))
y = torch.randint(0, C, (N,))
model = SGC()
cmodel = torch.compile(model, fullgraph=True)
opt = torch.optim.SGD(model.parameters(), lr=0.2)
for step in range(3):
    loss = nn.functional.cross_entropy(cmodel(x, edge_index), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
