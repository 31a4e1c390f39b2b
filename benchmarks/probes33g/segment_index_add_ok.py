import torch
import torch.nn as nn

torch.manual_seed(0)


class BasketScorer(nn.Module):
    def __init__(self, n_products=400, dim=16):
        super().__init__()
        self.products = nn.Embedding(n_products, dim)
        self.score = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, product_ids, basket_sizes):
        offsets = torch.cumsum(basket_sizes, 0)
        position = torch.arange(product_ids.shape[0])
        basket_of = torch.searchsorted(offsets, position, right=True)
        emb = self.products(product_ids)
        total = torch.zeros(basket_sizes.shape[0], emb.shape[1]).index_add_(0, basket_of, emb)
        mean = total / basket_sizes.unsqueeze(1).to(emb.dtype)
        return self.score(mean).squeeze(-1)


model = BasketScorer()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
train_step = torch.compile(model)
for step in range(6):
    basket_sizes = torch.randint(1, 10, (16,))
    product_ids = torch.randint(0, 400, (int(basket_sizes.sum()),))
    spend = torch.rand(16)
    loss = (train_step(product_ids, basket_sizes) - spend).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
