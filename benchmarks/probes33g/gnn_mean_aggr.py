import torch
import torch.nn as nn

torch.manual_seed(0)


class MeanConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(2 * dim, dim)

    def forward(self, x, edge_index):
        src, dst = edge_index
        num_nodes = int(edge_index.max()) + 1
        agg = torch.zeros(num_nodes, x.shape[1]).index_add_(0, dst, x[src])
        deg = torch.zeros(num_nodes).index_add_(0, dst, torch.ones(dst.shape[0]))
        agg = agg / deg.clamp(min=1).unsqueeze(1)
        return torch.relu(self.lin(torch.cat([x, agg], dim=1)))


class GraphRegressor(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.conv1 = MeanConv(dim)
        self.conv2 = MeanConv(dim)
        self.out = nn.Linear(dim, 1)

    def forward(self, x, edge_index):
        h = self.conv2(self.conv1(x, edge_index), edge_index)
        return self.out(h.mean(0))


model = GraphRegressor()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
compiled = torch.compile(model)
for step in range(6):
    n = 30 + 5 * step
    edge_index = torch.randint(0, n, (2, 4 * n))
    edge_index[:, 0] = n - 1
    x = torch.randn(n, 16)
    target = torch.tensor([float(n) / 50])
    loss = (compiled(x, edge_index) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"graph {step} nodes {n} loss {loss.item():.4f}")
