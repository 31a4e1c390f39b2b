import torch
CNT = torch.zeros((), dtype=torch.long)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.lin = torch.nn.Linear(64, 64)
    def forward(self, x):
        CNT.add_(1)
        return self.lin(x).sin()
m = torch.compile(M())
with torch.no_grad():
    for i in range(5):
        y = m(torch.ones(4, 64))
print("count", int(CNT))
