import torch
import torch.nn as nn

torch.manual_seed(0)
N = 200

dense = (torch.rand(N, N) < 0.03).float()
dense = ((dense + dense.T) > 0).float() + torch.eye(N)
deg_inv_sqrt = dense.sum(1).rsqrt()
norm_adj = (deg_inv_sqrt[:, None] * dense * deg_inv_sqrt[None, :]).to_sparse_csr()


class GCN(nn.Module):
    def __init__(self, inp=12, hidden=32, classes=3):
        super().__init__()
        self.w1 = nn.Linear(inp, hidden)
        self.w2 = nn.Linear(hidden, classes)

    def forward(self, adj, x):
        h = torch.relu(adj @ self.w1(x))
        return adj @ self.w2(h)


features = torch.randn(N, 12)
labels = torch.randint(0, 3, (N,))
model = GCN()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
compiled = torch.compile(model, fullgraph=True)
for epoch in range(5):
    loss = nn.functional.cross_entropy(compiled(norm_adj, features), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
