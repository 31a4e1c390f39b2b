"""A correct program: a layer whose weight is constrained with torch.nn.utils.parametrize
(a symmetric matrix parametrization, as in the parametrizations tutorial), plus a
weight-normalised output layer (torch.nn.utils.parametrizations.weight_norm), trained for
a few steps under torch.compile. Nothing is wrong."""
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
from torch.nn.utils.parametrizations import weight_norm


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.sym = nn.Linear(12, 12)
        P.register_parametrization(self.sym, "weight", Symmetric())
        self.out = weight_norm(nn.Linear(12, 3))

    def forward(self, x):
        return self.out(torch.tanh(self.sym(x)))


torch.manual_seed(0)
net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
cnet = torch.compile(net)
X, y = torch.randn(32, 12), torch.randint(0, 3, (32,))
for step in range(4):
    loss = nn.functional.cross_entropy(cnet(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
W = net.sym.weight
print("still symmetric:", torch.equal(W, W.T))
