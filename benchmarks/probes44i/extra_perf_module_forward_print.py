import torch
torch._dynamo.config.reorderable_logging_functions.add(print)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.lin = torch.nn.Linear(64, 64)
    def forward(self, x):
        y = self.lin(x).sin()
        print("fwd mean", y.mean())
        return y
torch.manual_seed(0)
m = torch.compile(M())
with torch.no_grad():
    for i in range(3):
        y = m(torch.ones(4, 64))
