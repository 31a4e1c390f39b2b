# Continuous features (price, age, dwell time) are bucketized against fixed
# quantile boundaries and embedded, as in wide-and-deep / DLRM feature pipelines.
import torch
import torch.nn as nn

torch.manual_seed(0)


class BucketEmbed(nn.Module):
    def __init__(self, n_feats=3, n_buckets=16, dim=8):
        super().__init__()
        self.register_buffer("bounds", torch.sort(torch.rand(n_feats, n_buckets - 1), -1).values)
        self.emb = nn.Embedding(n_feats * n_buckets, dim)
        self.n_buckets = n_buckets
        self.out = nn.Linear(n_feats * dim, 1)

    def forward(self, dense):  # dense: (batch, n_feats) in [0, 1)
        b = torch.searchsorted(self.bounds, dense.t().contiguous()).t()
        rows = b + torch.arange(dense.shape[1]) * self.n_buckets
        return self.out(self.emb(rows).flatten(1)).squeeze(-1)


model = BucketEmbed().eval()
cmodel = torch.compile(model)
x = torch.rand(4096, 3)
with torch.no_grad():
    ref = model(x)
    out = cmodel(x)
    for _ in range(20):
        out = cmodel(x)
print("max abs diff vs eager:", float((out - ref).abs().max()))
print("mean score:", round(float(out.mean()), 5))
