"""pytorch/pytorch#147115 ("Unable to print in a branch run by torch.cond",
https://github.com/pytorch/pytorch/issues/147115, open, 2025-02): torch.cond always runs its
branches through torch.compile (fullgraph), even when the program calls it in eager, so a
`print` inside a branch cannot be traced and the call fails with
UncapturedHigherOrderOpError instead of printing. A small gated residual block logs which path
it took; the gate is data-dependent, hence torch.cond."""
import torch

torch.manual_seed(0)


class GatedResidual(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x):
        def expand(t):
            print("gate open: applying projection")
            return t + self.proj(t)

        def skip(t):
            return t.clone()

        return torch.cond(x.mean() > 0, expand, skip, (x,))


block = GatedResidual(8)
x = torch.randn(4, 8).abs()
out = block(x)
print("out", out.shape, round(out.sum().item(), 4))
