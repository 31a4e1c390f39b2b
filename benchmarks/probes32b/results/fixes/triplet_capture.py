import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._dynamo.config.capture_dynamic_output_shape_ops = True


def batch_hard_triplet_loss(emb, labels, margin=0.3):
    dist = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    anchor_idx, pos_idx = torch.where(same & ~eye)
    neg_dist = dist.masked_fill(same, float("inf"))
    hardest_neg = neg_dist.min(dim=1).values
    losses = F.relu(dist[anchor_idx, pos_idx] - hardest_neg[anchor_idx] + margin)
    return losses.mean()


class Embedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 32))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


model = Embedder()
compiled_loss = torch.compile(batch_hard_triplet_loss)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
centers = torch.randn(10, 64)

for step in range(8):
    labels = torch.randint(0, 10, (48,))
    x = centers[labels] + 0.5 * torch.randn(48, 64)
    loss = compiled_loss(model(x), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} triplet loss {loss.item():.4f}")
