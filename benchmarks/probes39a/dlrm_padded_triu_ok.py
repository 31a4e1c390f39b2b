# DLRM-style CTR model: a dict of padded multi-hot id lists (0 = padding) is
# mean-pooled per feature, stacked with the bottom-MLP output, and the pairwise
# dot products above the diagonal (triu_indices) feed the top MLP.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SPARSE = {"user": 100, "item": 300, "genre": 20}


class DLRM(nn.Module):
    def __init__(self, dim=8, n_dense=4):
        super().__init__()
        self.tables = nn.ModuleDict({k: nn.Embedding(n, dim, padding_idx=0) for k, n in SPARSE.items()})
        self.bottom = nn.Sequential(nn.Linear(n_dense, dim), nn.ReLU())
        n = len(SPARSE) + 1
        self.register_buffer("iu", torch.triu_indices(n, n, offset=1), persistent=False)
        self.top = nn.Sequential(nn.Linear(dim + n * (n - 1) // 2, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, dense, sparse: dict):
        x = self.bottom(dense)
        feats = [x]
        for name, ids in sparse.items():
            mask = (ids != 0).unsqueeze(-1).float()
            e = (self.tables[name](ids) * mask).sum(1) / mask.sum(1).clamp(min=1)
            feats.append(e)
        z = torch.stack(feats, 1)
        inter = torch.bmm(z, z.transpose(1, 2))[:, self.iu[0], self.iu[1]]
        return self.top(torch.cat([x, inter], 1)).squeeze(-1)


model = DLRM()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
cmodel = torch.compile(model)
for step in range(4):
    dense = torch.randn(32, 4)
    sparse = {k: torch.randint(0, n, (32, 5)) * (torch.rand(32, 5) > 0.3) for k, n in SPARSE.items()}
    label = torch.randint(0, 2, (32,)).float()
    loss = F.binary_cross_entropy_with_logits(cmodel(dense, sparse), label)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
