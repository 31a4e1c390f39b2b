"""A DLRM-style click-through model served with mode="reduce-overhead": fixed-size bags (20 ids
per sample) are pooled with nn.Embedding and a sum over the bag dimension, which Inductor
generates as Triton gathers and reductions; the batch shape is fixed, the model's parameters are
its only state, and each step's outputs are read before the next replay. One compile, one CUDA
graph, nothing to fix."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
TABLES, ROWS, DIM, BAG, BATCH = 8, 100_000, 64, 20, 4096


class CTRModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList(nn.Embedding(ROWS, DIM) for _ in range(TABLES))
        self.bottom = nn.Sequential(nn.Linear(13, 256), nn.ReLU(), nn.Linear(256, DIM), nn.ReLU())
        self.top = nn.Sequential(nn.Linear(DIM * (TABLES + 1), 512), nn.ReLU(), nn.Linear(512, 1))

    def forward(self, dense, ids):
        pooled = [table(ids[i]).sum(dim=1) for i, table in enumerate(self.tables)]
        h = torch.cat([self.bottom(dense)] + pooled, dim=1)
        return torch.sigmoid(self.top(h)).squeeze(1)


model = CTRModel().to(device).eval()
compiled = torch.compile(model, mode="reduce-overhead")
with torch.no_grad():
    for step in range(8):
        dense = torch.randn(BATCH, 13, device=device)
        ids = torch.randint(0, ROWS, (TABLES, BATCH, BAG), device=device)
        ctr = compiled(dense, ids)
        print(f"batch {step}: mean ctr {ctr.mean().item():.3f}, clicks {(ctr > 0.5).sum().item()}")
