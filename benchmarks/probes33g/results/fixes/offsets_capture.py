import torch
import torch.nn as nn

torch.manual_seed(0)
torch._dynamo.config.capture_scalar_outputs = True


class SessionModel(nn.Module):
    def __init__(self, n_items=300, dim=16):
        super().__init__()
        self.items = nn.Embedding(n_items, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, item_ids, session_lengths):
        offsets = torch.cumsum(session_lengths, 0)
        emb = self.items(item_ids)
        sessions = torch.tensor_split(emb, offsets[:-1])
        pooled = torch.stack([s.mean(0) for s in sessions])
        return self.mlp(pooled).squeeze(-1)


model = SessionModel()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
train_step = torch.compile(model)
for step in range(5):
    session_lengths = torch.randint(2, 12, (8,))
    item_ids = torch.randint(0, 300, (int(session_lengths.sum()),))
    clicked = torch.randint(0, 2, (8,)).float()
    loss = nn.functional.binary_cross_entropy_with_logits(train_step(item_ids, session_lengths), clicked)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
