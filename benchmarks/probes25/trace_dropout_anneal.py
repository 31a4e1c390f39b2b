"""Training with an annealed dropout rate: each step sets the module's p from a schedule before
the compiled forward (a common regulariser schedule). Recorded with a plain TORCH_TRACE run."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


torch.manual_seed(0)
model = Net()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(12):
    model.drop.p = 0.5 * (1 - step / 12)  # anneal dropout towards 0
    x, y = torch.randn(16, 32), torch.randint(0, 4, (16,))
    loss = F.cross_entropy(cmodel(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
print("final loss", round(loss.item(), 4))
