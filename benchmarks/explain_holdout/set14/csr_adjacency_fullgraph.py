"""pytorch/pytorch#171865 ("torch.compile(fullgraph=True) fails with Unsupported error on
torch.sparse_csr_tensor", open; its message reworded by PR #172256): Dynamo does not trace sparse
tensor construction, and under fullgraph=True that ends the compile. Here: a graph convolution
that builds its normalized CSR adjacency from the batch's row pointers inside forward, compiled
whole with fullgraph=True."""
import torch
from torch import nn


class GraphConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x, crow, col, weight):
        adj = torch.sparse_csr_tensor(crow, col, weight, (x.shape[0], x.shape[0]))
        return torch.relu(adj @ self.lin(x))


conv = GraphConv(8)
crow = torch.tensor([0, 2, 3, 5, 6])
col = torch.tensor([1, 2, 0, 0, 3, 2])
weight = torch.full((6,), 0.5)
x = torch.randn(4, 8)
print("eager:", conv(x, crow, col, weight).shape)
print("compiled:", torch.compile(conv, fullgraph=True)(x, crow, col, weight).shape)
