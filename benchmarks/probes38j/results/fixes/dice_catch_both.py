# Segmentation dice loss that asserts the target mask is non-empty; the training loop
# skips batches whose target is empty by catching AssertionError.
import torch
import torch.nn as nn

torch.manual_seed(0)


def dice_loss(logits, target, eps=1e-6):
    assert target.sum() > 0, "empty target mask"
    p = torch.sigmoid(logits)
    inter = (p * target).sum()
    return 1 - (2 * inter + eps) / (p.sum() + target.sum() + eps)


net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loss_fn = torch.compile(dice_loss)
imgs = torch.rand(4, 1, 1, 8, 8)
masks = (imgs > 0.6).float()
masks[2] = 0.0  # an image with no foreground
for i in range(4):
    opt.zero_grad()
    try:
        loss = loss_fn(net(imgs[i]), masks[i])
    except (AssertionError, RuntimeError) as e:
        print(f"batch {i}: skipped ({e})")
        continue
    loss.backward()
    opt.step()
    print(f"batch {i}: dice loss {loss.item():.4f}")
