import copy, sys, torch, torch.nn.functional as F
sys.path.insert(0, "/work/wt40b/benchmarks/probes40b")
import fp32_head_autocast_grad as M
torch.manual_seed(0)
ref = M.Classifier(); comp = copy.deepcopy(ref)
x = torch.randn(32, 64); y = torch.randint(0, 10, (32,))
def run(m):
    feats = {}
    m_ = m._orig_mod if hasattr(m, "_orig_mod") else m
    hk = m_.backbone.register_forward_hook(lambda mod, i, o: feats.setdefault("h", o.detach()))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = m(x); loss = F.cross_entropy(logits, y)
    loss.backward(); hk.remove()
    # fp64 head-weight gradient from the same h and logits
    p = torch.softmax(logits.detach().double(), -1); p[torch.arange(32), y] -= 1; p /= 32
    g64 = p.t() @ feats["h"].double()
    return m_.head.weight.grad.double(), g64
ge, g64e = run(ref); gc, g64c = run(torch.compile(comp))
rel = lambda a, b: ((a - b).norm() / b.norm()).item()
print(f"head.weight grad rel err vs fp64: eager {rel(ge, g64e):.2e}  compiled {rel(gc, g64c):.2e}")
