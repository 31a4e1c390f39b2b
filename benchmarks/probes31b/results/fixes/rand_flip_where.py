import torch
import torch.nn as nn

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(self.features(x))


model = SmallCNN()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)


@torch.compile
def forward_train(images):
    images = torch.where(torch.rand(()) < 0.5, images.flip(-1), images)
    images = images + 0.05 * torch.randn_like(images)
    return model(images)


images = torch.randn(192, 3, 32, 32)
labels = torch.randint(0, 10, (192,))
for epoch in range(2):
    for i in range(0, 192, 32):
        logits = forward_train(images[i:i + 32])
        loss = nn.functional.cross_entropy(logits, labels[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} last loss {loss.item():.4f}")
