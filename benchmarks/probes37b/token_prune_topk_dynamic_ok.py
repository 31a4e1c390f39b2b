# Inference-time token pruning (keep the top half of tokens by a learned score, DynamicViT /
# token-dropping style) compiled with dynamic=True and fullgraph=True; the number kept is
# computed in Python from the sequence length (int(L * KEEP)).
import torch
import torch.nn as nn

torch.manual_seed(0)
KEEP = 0.5


class Pruner(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.ff = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, dim))
        self.cls = nn.Linear(dim, 5)

    def forward(self, tokens):  # [B, L, dim]
        B, L, D = tokens.shape
        k = max(2, int(L * KEEP))
        s = self.score(tokens).squeeze(-1)
        idx = s.topk(k, dim=1).indices.sort(dim=1).values  # keep original order
        kept = tokens.gather(1, idx.unsqueeze(-1).expand(B, k, D))
        kept = kept + self.ff(kept)
        return self.cls(kept.mean(1))


model = Pruner().eval()
cmodel = torch.compile(model, dynamic=True, fullgraph=True)
with torch.no_grad():
    for i, L in enumerate([10, 17, 32, 9, 25, 48]):
        x = torch.randn(2, L, 16)
        out = cmodel(x)
        ok = torch.allclose(out, model(x), atol=1e-5)
        print(f"batch {i} len {L:2d}: pred {out.argmax(1).tolist()} matches eager {ok}")
