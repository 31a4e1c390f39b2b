import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel, SWALR, update_bn

torch._dynamo.config.capture_scalar_outputs = True
torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(x)))
        return self.fc(x.mean(dim=(2, 3)))


images = torch.randn(256, 3, 16, 16)
labels = torch.randint(0, 10, (256,))
loader = [(images[i:i + 32], labels[i:i + 32]) for i in range(0, 256, 32)]

model = SmallCNN()
swa_model = AveragedModel(model)
compiled_swa = torch.compile(swa_model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
swa_sched = SWALR(opt, swa_lr=0.01)
compiled_model = torch.compile(model)

for epoch in range(4):
    for x, y in loader:
        loss = nn.functional.cross_entropy(compiled_model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch >= 1:
        swa_model.update_parameters(model)
        swa_sched.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

update_bn(loader, compiled_swa)
swa_model.eval()
with torch.no_grad():
    acc = (compiled_swa(images).argmax(1) == labels).float().mean().item()
print(f"swa train accuracy {acc:.3f}")
