# Experiment runner on a CPU-only box: each experiment resets Dynamo and compiles the model
# again, counting on the FX graph cache and the AOTAutograd cache to make every compile after
# the first one warm.  The "tf32" experiment was copied from a GPU recipe and sets
# torch.set_float32_matmul_precision("high"): on CPU the Linear layers still run the same
# kernels, but the precision is part of Inductor's FX graph cache key
# (FxGraphHashDetails.cuda_matmul_settings), so that experiment compiles from cold.
# Run with a fresh TORCHINDUCTOR_CACHE_DIR to see the first compile miss too.
import torch
import torch.nn as nn
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 256), nn.GELU(),
                      nn.Linear(256, 10)).eval()
x = torch.randn(64, 128)

experiments = [
    {"name": "baseline"},
    {"name": "repeat"},
    {"name": "tf32", "matmul_precision": "high"},
]

for exp in experiments:
    torch._dynamo.reset()
    counters.clear()
    torch.set_float32_matmul_precision(exp.get("matmul_precision", "highest"))
    cmodel = torch.compile(model)
    with torch.no_grad():
        out = cmodel(x)
    inductor = counters["inductor"]
    print(f"{exp['name']}: out.sum={out.sum().item():.4f} "
          f"fx_cache hit={inductor['fxgraph_cache_hit']} miss={inductor['fxgraph_cache_miss']}")
