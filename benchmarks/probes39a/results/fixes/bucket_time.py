import time, torch, sys
torch.set_num_threads(1)
torch_threads=1
src = open("/work/wt39a/benchmarks/probes39a/bucketize_searchsorted_fallback.py").read()
variants = {"searchsorted": src,
 "compare_count": src.replace("b = torch.searchsorted(self.bounds, dense.t().contiguous()).t()",
  "b = (dense.unsqueeze(-1) > self.bounds).sum(-1)")}
for k, s in variants.items():
    g = {}
    exec(compile(s, k, "exec"), g)
    m, cm, x = g["model"], g["cmodel"], g["x"]
    with torch.no_grad():
        for name, f in (("eager", m), ("compiled", cm)):
            f(x); t0 = time.perf_counter()
            pass
            ts=[]
            for r in range(7):
                t0=time.perf_counter(); [f(x) for _ in range(20)]; ts.append(time.perf_counter()-t0)
            t0 = time.perf_counter() - min(ts)/20*100
            print(k, name, round((time.perf_counter() - t0) / 100 * 1e6), "us/call")
