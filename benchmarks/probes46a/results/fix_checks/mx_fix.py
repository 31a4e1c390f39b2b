"""Mixup with soft targets in a compiled training step (channels_last, CPU bf16 autocast).

The labels are turned into one-hot vectors so the two mixed targets can be
blended and trained with a soft-target cross entropy (as in timm's
SoftTargetCrossEntropy).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 10


class ConvNet(nn.Module):
    def __init__(self, num_classes=NUM_CLASSES):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        )
        self.head = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.head(self.body(x).mean((2, 3)))


model = ConvNet().to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
beta = torch.distributions.Beta(torch.tensor(0.4), torch.tensor(0.4))


def soft_target_ce(logits, soft):
    return torch.sum(-soft * F.log_softmax(logits.float(), dim=-1), dim=-1).mean()


@torch.compile
def train_step(images, labels):
    lam = beta.sample()
    mixed = lam * images + (1 - lam) * images.flip(0)  # timm-style: mix with the reversed batch
    onehot = F.one_hot(labels, NUM_CLASSES).float()
    soft = lam * onehot + (1 - lam) * onehot.flip(0)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(mixed)
    return soft_target_ce(logits, soft)


images = [torch.randn(32, 3, 32, 32).contiguous(memory_format=torch.channels_last) for _ in range(4)]
labels = torch.arange(4 * 32).remainder(NUM_CLASSES).view(4, 32)[:, torch.randperm(32)]
for step in range(4):
    loss = train_step(images[step], labels[step])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
