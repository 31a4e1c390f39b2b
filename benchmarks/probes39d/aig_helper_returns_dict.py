# A masked-mean helper marked allow_in_graph "so Dynamo doesn't trace into it"; it returns
# its results in a dict (pooled features and per-row token counts).
import torch


@torch.compiler.allow_in_graph
def masked_mean(h, mask):
    m = mask.unsqueeze(-1).to(h.dtype)
    pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
    return {"pooled": pooled, "count": m.sum(1)}


class Pooler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x, mask):
        h = torch.tanh(self.enc(x))
        stats = masked_mean(h, mask)
        return self.head(stats["pooled"]) * stats["count"].clamp(max=4.0) / 4.0


torch.manual_seed(0)
model = Pooler().eval()
cmodel = torch.compile(model)
with torch.no_grad():
    for step in range(3):
        x = torch.randn(4, 6, 8)
        mask = torch.rand(4, 6) > 0.3
        out = cmodel(x, mask)
        print(step, [round(v, 5) for v in out.sum(-1).tolist()])
