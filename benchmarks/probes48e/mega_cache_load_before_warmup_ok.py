"""Batch inference worker for a tabular risk model, run on ephemeral hosts: every launch gets
a fresh, empty Inductor cache directory (simulated here with mkdtemp), so warm starts rely on
the portable "mega-cache" (torch.compiler.save_cache_artifacts / load_cache_artifacts) that
the previous launch left in shared storage.

Follows the torch.compile caching tutorial (pytorch.org/tutorials/recipes/torch_compile_caching_tutorial)."""
import os
import sys
import tempfile
import time

os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor_job_")  # fresh host

import torch
import torch.nn as nn

SHARED = os.path.join(tempfile.gettempdir(), "p48e_shared_storage")
ARTIFACTS = os.path.join(SHARED, "risk_model_ok.compile_artifacts")
torch.manual_seed(0)
torch.set_num_threads(1)


class RiskModel(nn.Module):
    def __init__(self, n_num=24, n_cat=6, card=50, d=64):
        super().__init__()
        self.emb = nn.ModuleList(nn.Embedding(card, 8) for _ in range(n_cat))
        self.mlp = nn.Sequential(nn.Linear(n_num + 8 * n_cat, d), nn.LayerNorm(d), nn.SiLU(),
                                 nn.Linear(d, d), nn.SiLU(), nn.Linear(d, 1))

    def forward(self, num, cat):
        e = [m(cat[:, i]) for i, m in enumerate(self.emb)]
        return torch.sigmoid(self.mlp(torch.cat([num, *e], dim=1))).squeeze(1)


model = RiskModel().eval()
predict = torch.compile(model)

g = torch.Generator().manual_seed(7)
batches = [(torch.randn(512, 24, generator=g), torch.randint(0, 50, (512, 6), generator=g))
           for _ in range(8)]

# pick up the compiled artifacts of the previous launch, if there is one, before any compile
if os.path.exists(ARTIFACTS):
    with open(ARTIFACTS, "rb") as f:
        torch.compiler.load_cache_artifacts(f.read())

with torch.no_grad():
    # smoke test before taking traffic: one batch through the compiled model
    t0 = time.perf_counter()
    predict(*batches[0])
    warm_ms = (time.perf_counter() - t0) * 1e3

    flagged = sum(int((predict(num, cat) > 0.5).sum()) for num, cat in batches)

print("batches scored:", len(batches), "rows:", 512 * len(batches))
print("rows flagged (p > 0.5):", flagged)

saved = torch.compiler.save_cache_artifacts()
if saved is not None:
    os.makedirs(SHARED, exist_ok=True)
    with open(ARTIFACTS, "wb") as f:
        f.write(saved[0])
print(f"smoke-test call: {warm_ms:.0f} ms", file=sys.stderr)
