import torch
torch._dynamo.config.capture_dynamic_output_shape_ops = True
import torch.nn as nn

torch.manual_seed(0)
N_ITEMS, DIM = 5000, 32


class ItemTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.item_emb = nn.Embedding(N_ITEMS, DIM)
        self.proj = nn.Linear(DIM, DIM)

    def forward(self, item_ids):
        # look up each distinct item once, then scatter back to the batch
        uniq, inverse = torch.unique(item_ids, return_inverse=True)
        vecs = self.proj(self.item_emb(uniq))
        return vecs[inverse]


tower = ItemTower()
user_vecs = nn.Parameter(torch.randn(256, DIM) * 0.1)
opt = torch.optim.Adam(list(tower.parameters()) + [user_vecs], lr=1e-2)
compiled_tower = torch.compile(tower)

for step in range(6):
    users = torch.randint(0, 256, (512,))
    items = torch.randint(0, 400, (512,))  # popular items repeat a lot within a batch
    labels = (torch.rand(512) < 0.3).float()
    item_vecs = compiled_tower(items)
    logits = (user_vecs[users] * item_vecs).sum(-1)
    loss = nn.functional.binary_cross_entropy_with_logits(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
