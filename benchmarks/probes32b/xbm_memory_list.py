import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class CrossBatchMemoryLoss(nn.Module):
    """Contrastive loss against embeddings of the last few batches (XBM)."""

    def __init__(self, max_batches=6, margin=0.5):
        super().__init__()
        self.max_batches = max_batches
        self.margin = margin
        self.feats = []
        self.labels = []

    def forward(self, emb, labels):
        self.feats.append(emb.detach())
        self.labels.append(labels)
        if len(self.feats) > self.max_batches:
            self.feats.pop(0)
            self.labels.pop(0)
        bank = torch.cat(self.feats)
        bank_labels = torch.cat(self.labels)
        sim = emb @ bank.T
        pos = labels[:, None] == bank_labels[None, :]
        pos_loss = ((1 - sim) * pos).sum() / pos.sum()
        neg_loss = (F.relu(sim - self.margin) * ~pos).sum() / (~pos).sum()
        return pos_loss + neg_loss


embedder = nn.Sequential(nn.Linear(40, 64), nn.ReLU(), nn.Linear(64, 16))
loss_fn = torch.compile(CrossBatchMemoryLoss())
opt = torch.optim.Adam(embedder.parameters(), lr=1e-3)

for step in range(10):
    x = torch.randn(32, 40)
    y = torch.randint(0, 8, (32,))
    emb = F.normalize(embedder(x), dim=1)
    loss = loss_fn(emb, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} memory {len(loss_fn.feats)} batches")
