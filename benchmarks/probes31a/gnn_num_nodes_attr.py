import torch
import torch.nn as nn

torch.manual_seed(0)


class MeanAggConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin_self = nn.Linear(dim, dim)
        self.lin_nbr = nn.Linear(dim, dim)
        self.num_nodes = 0

    def set_graph(self, num_nodes):
        self.num_nodes = num_nodes

    def forward(self, x, src, dst):
        summed = torch.zeros(self.num_nodes, x.shape[1]).index_add_(0, dst, x[src])
        deg = torch.zeros(self.num_nodes).index_add_(0, dst, torch.ones_like(dst, dtype=x.dtype))
        mean = summed / deg.clamp(min=1)[:, None]
        return torch.relu(self.lin_self(x) + self.lin_nbr(mean))


conv = MeanAggConv(16)
head = nn.Linear(16, 3)
opt = torch.optim.Adam(list(conv.parameters()) + list(head.parameters()), lr=1e-2)
step_fn = torch.compile(conv)

for epoch in range(12):
    n = 40 + 7 * epoch
    x = torch.randn(n, 16)
    src = torch.randint(0, n, (4 * n,))
    dst = torch.randint(0, n, (4 * n,))
    y = torch.randint(0, 3, (n,))
    conv.set_graph(n)
    logits = head(step_fn(x, src, dst))
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"graph {epoch} nodes {n} loss {loss.item():.4f}")
