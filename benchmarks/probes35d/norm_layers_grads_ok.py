import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.use_deterministic_algorithms(True)


class SmallConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.gn = nn.GroupNorm(4, 16)
        self.ln = nn.LayerNorm(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.conv1(x)))
        x = F.relu(self.gn(self.conv2(x)))
        return self.fc(self.ln(x.mean((2, 3))))


eager_model = SmallConvNet()
comp_model = copy.deepcopy(eager_model)
compiled = torch.compile(comp_model)
opt_e = torch.optim.SGD(eager_model.parameters(), lr=0.05, momentum=0.9)
opt_c = torch.optim.SGD(comp_model.parameters(), lr=0.05, momentum=0.9)

for step in range(4):
    x = torch.randn(8, 3, 12, 12) * 2 + 1
    y = torch.randint(0, 10, (8,))
    for model, fwd, opt in ((eager_model, eager_model, opt_e), (comp_model, compiled, opt_c)):
        opt.zero_grad()
        F.cross_entropy(fwd(x), y).backward()
        opt.step()
    grad_diff = max((a.grad - b.grad).abs().max().item()
                    for a, b in zip(eager_model.parameters(), comp_model.parameters()))
    print(f"step {step} max |grad compiled - eager| < 1e-4: {grad_diff < 1e-4}")

stat_diff = max((eager_model.bn.running_mean - comp_model.bn.running_mean).abs().max().item(),
                (eager_model.bn.running_var - comp_model.bn.running_var).abs().max().item())
print("num_batches_tracked", eager_model.bn.num_batches_tracked.item(), comp_model.bn.num_batches_tracked.item())
print(f"running stats max diff < 1e-4: {stat_diff < 1e-4}")
