import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._dynamo.config.reorderable_logging_functions.add(print)


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, alpha=0.25):
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha

    def forward(self, logits, targets):
        bce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        pt = torch.exp(-bce)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        loss = alpha_t * (1 - pt) ** self.gamma * bce
        print(f"  focal: easy examples {(pt > 0.9).float().mean():.2f}")
        return loss.mean()


detector_head = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
criterion = FocalLoss()
opt = torch.optim.SGD(detector_head.parameters(), lr=0.05, momentum=0.9)


@torch.compile
def train_step(feats, labels):
    logits = detector_head(feats).squeeze(-1)
    loss = criterion(logits, labels)
    return loss


feats = torch.randn(2048, 32)
labels = ((feats[:, 0] + feats[:, 1]) > 2.0).float()
for step in range(8):
    idx = torch.randint(0, 2048, (256,))
    opt.zero_grad()
    loss = train_step(feats[idx], labels[idx])
    loss.backward()
    opt.step()
    print(f"step {step} focal loss {loss.item():.5f}")
