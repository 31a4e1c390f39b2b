# Multi-modal late fusion: a batch arrives as a dict of per-modality feature tensors; the model
# concatenates them in sorted key order so the head does not depend on the loader's dict order.
import torch
import torch.nn as nn

torch.manual_seed(0)


class LateFusion(nn.Module):
    def __init__(self, dims, hidden=16, n_cls=3):
        super().__init__()
        self.proj = nn.ModuleDict({k: nn.Linear(d, hidden) for k, d in dims.items()})
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden * len(dims), n_cls))

    def forward(self, feats):
        z = {k: self.proj[k](v) for k, v in feats.items()}
        fused = torch.cat([z[k] for k in sorted(z)], dim=-1)  # canonical modality order
        return self.head(fused)


dims = {"text": 8, "audio": 6, "image": 10}
model = LateFusion(dims).eval()
cmodel = torch.compile(model)


def make_batch(order, b=4):
    return {k: torch.randn(b, dims[k]) for k in order}


with torch.no_grad():
    for step in range(3):
        order = ("text", "audio", "image")  # the loader's order
        batch = make_batch(order)
        out_c = cmodel(batch)
        out_e = model(batch)
        print(f"step {step}: pred {out_c.argmax(-1).tolist()} "
              f"max|c-e| {float((out_c - out_e).abs().max()):.2e}")
