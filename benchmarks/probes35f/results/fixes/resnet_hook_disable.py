# Small ResNet with a Grad-CAM hook (the usual Grad-CAM tutorial pattern): the last block's
# activations are kept and their gradient is captured by a tensor hook in forward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNetCAM(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16)
        self.layer2 = BasicBlock(16, 32, stride=2)
        self.fc = nn.Linear(32, num_classes)
        self.gradients = None

    def activations_hook(self, grad):
        self.gradients = grad

    @torch.compiler.disable
    def save_grad(self, x):
        if x.requires_grad:
            x.register_hook(self.activations_hook)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        self.save_grad(x)
        self.activations = x
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


model = torch.compile(ResNetCAM())
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(4):
    x, y = torch.randn(8, 3, 16, 16), torch.randint(0, 4, (8,))
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    weights = model.gradients.mean(dim=(2, 3), keepdim=True)
    cam = F.relu((weights * model.activations).sum(1))
    print(f"step {step} loss {loss.item():.4f} cam max {cam.max().item():.6f}")
