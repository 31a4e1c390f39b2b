import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 10


@torch.compile
def knn_predict(feats, bank, bank_labels, k=20, temperature=0.1):
    sim = feats @ bank.T
    top_sim, top_idx = sim.topk(k, dim=1)
    neighbor_labels = bank_labels[top_idx]
    weights = (top_sim / temperature).exp()
    offsets = torch.arange(feats.shape[0])[:, None] * NUM_CLASSES
    votes = torch.zeros(feats.shape[0], NUM_CLASSES).scatter_add_(1, neighbor_labels, weights)
    return votes.argmax(dim=1)


backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 24))
centers = torch.randn(NUM_CLASSES, 32) * 2
train_y = torch.randint(0, NUM_CLASSES, (512,))
train_x = centers[train_y] + torch.randn(512, 32)
test_y = torch.randint(0, NUM_CLASSES, (256,))
test_x = centers[test_y] + torch.randn(256, 32)
opt = torch.optim.SGD(backbone.parameters(), lr=0.1)

for epoch in range(3):
    for i in range(0, 512, 64):
        emb = backbone(train_x[i:i + 64])
        loss = F.cross_entropy(emb[:, :NUM_CLASSES], train_y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        bank = F.normalize(backbone(train_x), dim=1)
        correct = 0
        for i in range(0, 256, 64):
            feats = F.normalize(backbone(test_x[i:i + 64]), dim=1)
            pred = knn_predict(feats, bank, train_y)
            correct += (pred == test_y[i:i + 64]).sum().item()
    print(f"epoch {epoch} loss {loss.item():.4f} knn acc {correct / 256:.3f}")
