# Training a small conv/BN/ReLU CNN in channels_last with tensor augmentation done beside
# the compiled step (random crop + flip + mixup), then a model.eval() validation pass
# on the eager module (the compiled one is only used for training steps).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 16, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4),
).to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
cmodel = torch.compile(model)


def augment(x, y, g):
    B = x.shape[0]
    x = F.pad(x, (2, 2, 2, 2), mode="reflect")
    i, j = torch.randint(0, 5, (2,), generator=g).tolist()
    x = x[:, :, i:i + 16, j:j + 16]
    flip = torch.rand(B, generator=g) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    lam = torch.distributions.Beta(0.4, 0.4).sample()
    perm = torch.randperm(B, generator=g)
    x = lam * x + (1 - lam) * x[perm]
    y1 = F.one_hot(y, 4).float()
    return x.contiguous(memory_format=torch.channels_last), lam * y1 + (1 - lam) * y1[perm]


g = torch.Generator().manual_seed(1)
data = torch.randn(64, 3, 16, 16)
target = (data[:, 0].mean((1, 2)) > 0).long() + 2 * (data[:, 1].mean((1, 2)) > 0).long()
model.train()
for step in range(6):
    idx = torch.arange(step * 8, step * 8 + 8) % 64
    x, y = augment(data[idx], target[idx], g)
    loss = torch.sum(-y * F.log_softmax(cmodel(x), -1), -1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
model.eval()
with torch.no_grad():
    acc = (model(data.contiguous(memory_format=torch.channels_last)).argmax(-1) == target).float().mean()
print("val acc", round(acc.item(), 4))
