"""Click-through-rate model: embeddings of (user, ad) + dense features -> MLP -> click probability.

Trained with binary cross-entropy against the click labels; the forward pass and
loss are compiled, backward and the SGD update run as usual.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_USERS, N_ADS, DENSE = 200, 50, 6


class CTRModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(N_USERS, 8)
        self.ad = nn.Embedding(N_ADS, 8)
        self.mlp = nn.Sequential(nn.Linear(16 + DENSE, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, user, ad, dense):
        h = torch.cat([self.user(user), self.ad(ad), dense], dim=-1)
        return torch.sigmoid(self.mlp(h).squeeze(-1))          # click probability


model = CTRModel()
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def compute_loss(user, ad, dense, clicked):
    p_click = model(user, ad, dense)
    return F.binary_cross_entropy(p_click, clicked)


def batch(seed, n=256):
    g = torch.Generator().manual_seed(seed)
    user = torch.randint(0, N_USERS, (n,), generator=g)
    ad = torch.randint(0, N_ADS, (n,), generator=g)
    dense = torch.randn(n, DENSE, generator=g)
    clicked = (torch.rand(n, generator=g) < torch.sigmoid(dense[:, 0] - 1.0)).float()
    return user, ad, dense, clicked


for step in range(6):
    loss = compute_loss(*batch(step))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("step %d  train loss %.4f" % (step, loss.item()))
