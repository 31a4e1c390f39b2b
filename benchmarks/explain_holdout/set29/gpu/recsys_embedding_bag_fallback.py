"""Serving a DLRM-style click-through model compiled on the GPU. Eight sparse features are
pooled with nn.EmbeddingBag(mode="sum") over fixed-size bags (20 ids per sample, offsets
0, 20, 40, ...). Inductor has no Triton lowering for aten._embedding_bag: lowering.py declares
make_fallback(aten._embedding_bag / _embedding_bag_forward_only), so every table is an ATen
FallbackKernel ("Using FallbackKernel: torch.ops.aten._embedding_bag.default"),
the pooled rows go through memory and the concat/MLP cannot fuse with the lookup. With a fixed
bag size the fix is nn.Embedding on the (batch, 20) ids and .sum(1): Inductor then generates the
gather and the bag reduction in one Triton kernel."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
TABLES, ROWS, DIM, BAG, BATCH = 8, 100_000, 64, 20, 4096


class CTRModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(ROWS, DIM, mode="sum") for _ in range(TABLES))
        self.bottom = nn.Sequential(nn.Linear(13, 256), nn.ReLU(), nn.Linear(256, DIM), nn.ReLU())
        self.top = nn.Sequential(nn.Linear(DIM * (TABLES + 1), 512), nn.ReLU(), nn.Linear(512, 1))

    def forward(self, dense, ids, offsets):
        pooled = [table(ids[i], offsets) for i, table in enumerate(self.tables)]
        h = torch.cat([self.bottom(dense)] + pooled, dim=1)
        return torch.sigmoid(self.top(h)).squeeze(1)


model = CTRModel().to(device).eval()
compiled = torch.compile(model)
offsets = torch.arange(0, BATCH * BAG, BAG, device=device)
with torch.no_grad():
    for step in range(5):
        dense = torch.randn(BATCH, 13, device=device)
        ids = torch.randint(0, ROWS, (TABLES, BATCH * BAG), device=device)
        ctr = compiled(dense, ids, offsets)
        print(f"batch {step}: mean ctr {ctr.mean().item():.3f}, clicks {(ctr > 0.5).sum().item()}")
