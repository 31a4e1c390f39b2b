# Offline scoring of users from their jagged click histories (a variable number
# of item ids per user), kept as a nested jagged tensor, embedded and sum-pooled.
import torch
import torch.nn as nn

torch.manual_seed(0)


class JaggedPool(nn.Module):
    def __init__(self, n_items=200, dim=8):
        super().__init__()
        self.emb = nn.Embedding(n_items, dim)
        self.head = nn.Linear(dim, 1)

    def forward(self, values, offsets):
        hist = torch.nested.nested_tensor_from_jagged(values, offsets)
        pooled = self.emb(hist).sum(dim=1)
        return self.head(pooled).squeeze(-1)


model = JaggedPool().eval()
score = torch.compile(model)
torch.set_grad_enabled(False)
for batch in range(3):
    lengths = torch.randint(1, 6, (8,))
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)])
    values = torch.randint(0, 200, (int(offsets[-1]),))
    s = score(values, offsets)
    top = s.argmax().item()
    print(f"batch {batch}: {values.numel()} clicks, top user {top}, score {s[top].item():.4f}")
