# after pytorch/pytorch#158643 ("torch.compile() produces inconsistent outputs with models
# containing dropout and in-place ReLU operations") and pytorch/pytorch#113169 (dropout's
# outputs differ between eager and torch.compile)
"""Accuracy, not comparable: a training step with dropout draws its mask with Inductor's own
generator, so compiled outputs and gradients never equal eager's, seed or no seed. Under
--check-accuracy that is information at the dropout's line (fallback_random to compare), not a
compiler bug, and `compdiag check` passes it. Run with --check-accuracy."""
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(32, 32)
        self.drop = torch.nn.Dropout(0.3)
        self.act = torch.nn.ReLU(inplace=True)

    def forward(self, x):
        h = self.drop(self.fc(x))  # <- diagnosis
        return self.act(h).sum()


torch.manual_seed(0)
net = torch.compile(Net().train())
loss = net(torch.randn(8, 32))
loss.backward()
print("loss", round(loss.item(), 4))
