"""CIFAR-style CNN trained with a BatchNorm momentum schedule, model compiled.

PointNet/PointNet++ training code decays the BatchNorm momentum every epoch with a
`BNMomentumScheduler` that does `model.apply(setter(bn_lambda(epoch)))`, writing a new
Python float into every BN layer's `.momentum`.  Here the same scheduler drives a small
2-D CNN whose forward is torch.compile'd.
Source: erikwijmans/Pointnet2_PyTorch (pointnet2_ops / pytorch_utils.BNMomentumScheduler),
charlesq34/pointnet `get_bn_decay`.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def set_bn_momentum_default(bn_momentum):
    def fn(m):
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
            m.momentum = torch.tensor(bn_momentum)
    return fn


class BNMomentumScheduler:
    def __init__(self, model, bn_lambda, setter=set_bn_momentum_default):
        self.model, self.lmbd, self.setter = model, bn_lambda, setter
        self.step(0)

    def step(self, epoch):
        self.model.apply(self.setter(self.lmbd(epoch)))


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16)
        self.conv2, self.bn2 = nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(x.mean((2, 3)))


model = SmallCNN()
model_c = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
bnm = BNMomentumScheduler(model, lambda e: max(0.5 * 0.7 ** e, 0.01))
data = [(torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,))) for _ in range(3)]

for epoch in range(10):
    bnm.step(epoch)
    model.train()
    for x, y in data:
        loss = F.cross_entropy(model_c(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: bn momentum {float(model.bn1.momentum):.4f} loss {loss.item():.4f} "
          f"running_mean[0] {model.bn1.running_mean[0].item():.4f}")
