import atexit, runpy, sys, time, torch
t0 = time.time()
def dump():
    from torch._dynamo.utils import counters
    print("COUNTERS inductor", {k: v for k, v in counters["inductor"].items() if "cache" in k},
          "aot_autograd", {k: v for k, v in counters["aot_autograd"].items() if "cache" in k or "bypass" in k},
          f"wall {time.time()-t0:.1f}s")
atexit.register(dump)
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
