"""SE-ResNet on CIFAR-like data, BatchNorm with a cumulative moving average.

The user follows the "precise BN" advice of keeping a true average of the
batch statistics instead of an exponential one, which in PyTorch is spelled
``nn.BatchNorm2d(c, momentum=None)``.  The whole model is compiled.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def norm(c):
    # momentum=None -> cumulative moving average of running_mean / running_var
    return nn.BatchNorm2d(c, momentum=None)


class SqueezeExcite(nn.Module):
    def __init__(self, c, rd=4):
        super().__init__()
        self.reduce = nn.Conv2d(c, c // rd, 1)
        self.expand = nn.Conv2d(c // rd, c, 1)

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        s = self.expand(F.relu(self.reduce(s)))
        return x * torch.sigmoid(s)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = norm(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = norm(cout)
        self.se = SqueezeExcite(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), norm(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.se(self.bn2(self.conv2(out)))
        sc = x if self.short is None else self.short(x)
        return F.relu(out + sc)


class SEResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), norm(16), nn.ReLU())
        self.layers = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 32, 2))
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.head(x.mean((2, 3)))


model = SEResNet()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
images = torch.randn(6, 16, 3, 32, 32)
labels = torch.randint(0, 10, (6, 16))

model.train()
for step in range(3):
    loss = F.cross_entropy(cmodel(images[step]), labels[step])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    logits = cmodel(images[4:].flatten(0, 1))
acc = (logits.argmax(1) == labels[4:].flatten()).float().mean().item()
print(f"val acc {acc:.3f} batches tracked {int(model.stem[1].num_batches_tracked)}")
