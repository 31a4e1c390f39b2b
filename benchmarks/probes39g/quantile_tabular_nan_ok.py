# Quantile forecaster for tabular sales rows: store/category embeddings + numeric features
# with missing values (NaN), robust per-column scaling with nanmedian-like nanquantile and
# nanmean, NaN mask as extra features, pinball loss for three quantiles; 3 training steps.
import torch
import torch.nn as nn

torch.manual_seed(0)
QS = (0.1, 0.5, 0.9)


class QuantileNet(nn.Module):
    def __init__(self, n_store=5, n_cat=4, n_num=6):
        super().__init__()
        self.store = nn.Embedding(n_store, 3)
        self.cat = nn.Embedding(n_cat, 2)
        self.mlp = nn.Sequential(nn.Linear(3 + 2 + 2 * n_num, 32), nn.ReLU(), nn.Linear(32, len(QS)))
        self.register_buffer("q", torch.tensor(QS))

    def forward(self, store_id, cat_id, num):
        missing = torch.isnan(num)
        center = torch.nanmean(num, dim=0, keepdim=True)
        spread = torch.nanquantile(num, 0.75, dim=0, keepdim=True) - torch.nanquantile(num, 0.25, dim=0, keepdim=True)
        z = torch.where(missing, torch.zeros_like(num), (num - center) / (spread + 1e-3))
        h = torch.cat([self.store(store_id), self.cat(cat_id), z, missing.float()], dim=1)
        return self.mlp(h)

    def pinball(self, pred, y):
        e = y[:, None] - pred
        return torch.maximum(self.q * e, (self.q - 1) * e).mean()


model = QuantileNet()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
store_id = torch.randint(0, 5, (64,))
cat_id = torch.randint(0, 4, (64,))
num = torch.randn(64, 6) * 3 + 10
num[torch.rand(64, 6) < 0.15] = float("nan")
y = torch.nan_to_num(num[:, 0], 10.0) + store_id.float()
for step in range(3):
    pred = cmodel(store_id, cat_id, num)
    loss = model.pinball(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), [round(v, 3) for v in pred[0].tolist()])
