import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ConvNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


model = ConvNet().to(memory_format=torch.channels_last)
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

val_images = torch.randn(32, 3, 32, 32).to(memory_format=torch.channels_last)
val_labels = torch.randint(0, 10, (32,))

for epoch in range(2):
    model.train()
    for step in range(3):
        images = torch.randn(16, 3, 32, 32).to(memory_format=torch.channels_last)
        labels = torch.randint(0, 10, (16,))
        loss = F.cross_entropy(compiled(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        acc = (compiled(val_images).argmax(1) == val_labels).float().mean()
    print(f"epoch {epoch} train loss {loss.item():.4f} val acc {acc.item():.3f}")
