import torch
import torch.nn as nn

torch.manual_seed(0)


class ClickModel(nn.Module):
    def __init__(self, n_users=2000, n_items=1000, dim=16):
        super().__init__()
        self.users = nn.Embedding(n_users, dim, sparse=True)
        self.items = nn.Embedding(n_items, dim, sparse=True)
        self.bias = nn.Linear(2 * dim, 1)

    def forward(self, user_ids, item_ids):
        u, v = self.users(user_ids), self.items(item_ids)
        return (u * v).sum(-1) + self.bias(torch.cat([u, v], -1)).squeeze(-1)


model = ClickModel()
sparse_opt = torch.optim.SparseAdam([model.users.weight, model.items.weight], lr=1e-2)
dense_opt = torch.optim.Adam(model.bias.parameters(), lr=1e-2)
train = torch.compile(model)
for step in range(6):
    users = torch.randint(0, 2000, (256,))
    items = torch.randint(0, 1000, (256,))
    clicks = ((users + items) % 3 == 0).float()
    loss = nn.functional.binary_cross_entropy_with_logits(train(users, items), clicks)
    sparse_opt.zero_grad()
    dense_opt.zero_grad()
    loss.backward()
    sparse_opt.step()
    dense_opt.step()
    print(f"step {step} loss {loss.item():.4f} grad layout {model.users.weight.grad.layout}")
