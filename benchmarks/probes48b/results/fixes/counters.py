import runpy, sys
from torch._dynamo.utils import counters
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
print("COUNTERS", {k: v for k, v in counters["inductor"].items() if "cache" in k}, {k: v for k, v in counters["aot_autograd"].items() if "cache" in k or "autograd_cache" in k}, file=sys.stderr)
