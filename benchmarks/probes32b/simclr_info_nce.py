import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
BATCH, N_VIEWS, TEMPERATURE = 32, 2, 0.1


class SimCLR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(64, 128), nn.ReLU())
        self.projector = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 32))

    def forward(self, x):
        return self.projector(self.backbone(x))


def info_nce_logits(features):
    labels = torch.cat([torch.arange(BATCH) for _ in range(N_VIEWS)], dim=0)
    labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
    features = F.normalize(features, dim=1)
    similarity = features @ features.T
    mask = torch.eye(labels.shape[0], dtype=torch.bool)
    labels = labels[~mask].view(labels.shape[0], -1)
    similarity = similarity[~mask].view(similarity.shape[0], -1)
    positives = similarity[labels.bool()].view(labels.shape[0], -1)
    negatives = similarity[~labels.bool()].view(similarity.shape[0], -1)
    logits = torch.cat([positives, negatives], dim=1) / TEMPERATURE
    targets = torch.zeros(logits.shape[0], dtype=torch.long)
    return logits, targets


@torch.compile(fullgraph=True)
def train_loss(model, images):
    logits, targets = info_nce_logits(model(images))
    return F.cross_entropy(logits, targets)


model = SimCLR()
opt = torch.optim.Adam(model.parameters(), lr=3e-4)
for step in range(6):
    x = torch.randn(BATCH, 64)
    views = torch.cat([x + 0.2 * torch.randn_like(x), x + 0.2 * torch.randn_like(x)])
    loss = train_loss(model, views)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} nt-xent {loss.item():.4f}")
