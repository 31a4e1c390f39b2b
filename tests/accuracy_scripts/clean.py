# A correct model: in-place input mutation and a buffer update (BatchNorm in training mode);
# every number it prints must be the same with and without compdiag's accuracy check.
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.bn = torch.nn.BatchNorm1d(8)

    def forward(self, x, acc):
        acc.add_(1)
        y = self.lin(x)
        return self.bn(torch.relu(y)) + acc


torch.manual_seed(0)
m = M()
opt = torch.compile(m)
x = torch.randn(4, 8)
acc = torch.zeros(8)
out = opt(x, acc)
print("out", [round(v, 5) for v in out.detach()[0].tolist()])
print("acc", acc.tolist()[:2])
print("running_mean", round(float(m.bn.running_mean.sum()), 6))
print("next random", float(torch.rand(1)))
