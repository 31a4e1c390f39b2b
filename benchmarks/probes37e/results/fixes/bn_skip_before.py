# Linear probe on frozen CNN features: a BatchNorm1d + Linear head trained on pooled
# features. The last batch of the epoch has a single image; BatchNorm in train mode
# cannot use it, so the loop skips batches that BatchNorm rejects with ValueError.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten()).eval().requires_grad_(False)


class Probe(nn.Module):
    def __init__(self, d=16, n_cls=3):
        super().__init__()
        self.bn = nn.BatchNorm1d(d)
        self.fc = nn.Linear(d, n_cls)

    def forward(self, feats):
        return self.fc(self.bn(feats))


probe = Probe().train()
opt = torch.optim.SGD(probe.parameters(), lr=0.1)
cprobe = torch.compile(probe)
images = torch.randn(13, 3, 12, 12)
labels = torch.randint(0, 3, (13,))
for epoch in range(2):
    for start in range(0, 13, 4):
        with torch.no_grad():
            feats = backbone(images[start:start + 4])
        if feats.shape[0] < 2:
            print(epoch, start, "skipped: batch of 1")
            continue
        try:
            loss = F.cross_entropy(cprobe(feats), labels[start:start + 4])
        except ValueError as e:
            print(epoch, start, "skipped:", str(e).split(",")[0])
            continue
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, start, round(loss.item(), 4))
