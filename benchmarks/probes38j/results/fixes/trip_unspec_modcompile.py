# Batch-hard triplet loss with a curriculum: average over the `num_hard` hardest negatives,
# raised by one every epoch (common in metric-learning code: start easy, mine harder later).
import torch
torch._dynamo.config.allow_unspec_int_on_nn_module = True
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class HardTripletLoss(nn.Module):
    def __init__(self, margin=0.2, num_hard=1):
        super().__init__()
        self.margin = margin
        self.num_hard = num_hard

    def forward(self, emb, labels):
        d = torch.cdist(emb, emb)
        same = labels[:, None] == labels[None, :]
        pos = d.masked_fill(~same, 0.0).amax(dim=1)
        neg_d = d.masked_fill(same, float("inf"))
        hard_neg = (-neg_d).topk(self.num_hard, dim=1).values.neg().mean(dim=1)
        return F.relu(pos - hard_neg + self.margin).mean()


net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
crit = HardTripletLoss()
ccrit = torch.compile(crit)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
step = lambda x, y: ccrit(F.normalize(net(x), dim=1), y)
X = torch.randn(32, 8)
Y = torch.arange(32) % 4
for epoch in range(5):
    crit.num_hard = 1 + epoch  # curriculum: more hard negatives each epoch
    losses = []
    for i in range(0, 32, 16):
        opt.zero_grad()
        loss = step(X[i:i + 16], Y[i:i + 16])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(f"epoch {epoch} num_hard {crit.num_hard} loss {sum(losses) / len(losses):.4f}")
