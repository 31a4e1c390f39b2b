# Correct experiment runner: an eager baseline through the compiled wrapper under a scoped
# set_stance("force_eager"), then two compiled experiments with mode="max-autotune-no-cudagraphs"
# on CPU, torch._dynamo.reset() between them and no setting changed, so the second compile is
# served from the FX graph and AOTAutograd caches.
import torch
import torch.nn as nn
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 10)).eval()
x = torch.randn(64, 64)

cmodel = torch.compile(model, mode="max-autotune-no-cudagraphs")
with torch.no_grad():
    with torch.compiler.set_stance("force_eager"):
        baseline = cmodel(x)
    print(f"eager baseline sum={baseline.sum().item():.4f}")

    for run in ("first", "second"):
        torch._dynamo.reset()
        counters.clear()
        cmodel = torch.compile(model, mode="max-autotune-no-cudagraphs")
        out = cmodel(x)
        ok = torch.allclose(out, baseline, rtol=1e-4, atol=1e-5)
        print(f"{run}: matches eager={ok} fx_cache hit={counters['inductor']['fxgraph_cache_hit']}")
