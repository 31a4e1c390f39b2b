import torch
import torch.nn as nn

torch.manual_seed(0)


class TinySegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
            nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
            nn.Conv2d(8, 1, 1),
        )

    def forward(self, x):
        return self.body(x)


def soft_dice_loss(logits, mask, smooth=1.0):
    prob = torch.sigmoid(logits)
    inter = (prob * mask).sum()
    union = prob.sum() + mask.sum()
    dice = 1.0 - (2.0 * inter + smooth) / (union + smooth)
    return torch.where(mask.sum() == 0, prob.mean(), dice)


model = TinySegNet()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def train_step(img, mask):
    loss = soft_dice_loss(model(img), mask)
    return loss


images = torch.randn(8, 4, 1, 32, 32)
masks = (images > 1.0).float()
masks[3] = 0.0
for epoch in range(3):
    total = 0.0
    for img, mask in zip(images, masks):
        opt.zero_grad()
        loss = train_step(img, mask)
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} dice loss {total / len(images):.4f}")
