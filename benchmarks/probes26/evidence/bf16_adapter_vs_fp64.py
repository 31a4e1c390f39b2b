# Evidence, not a blind case: acc_bf16_weights_upcast's adapter, eager and compiled against a float64
# reference. Printed: max|e-c| 0.0430, rmse eager vs fp64 0.00413, compiled vs fp64 0.00188.
import torch, torch.nn.functional as F
torch.manual_seed(0)
W = (torch.randn(64, 64) / 8).bfloat16(); B = (torch.randn(64) / 10).bfloat16()
def adapter(x):
    h = x.bfloat16() @ W + B
    h = F.silu(h) * 1.702 + 0.5
    return x + h.float()
x = torch.randn(16, 64)
e = adapter(x); c = torch.compile(adapter)(x)
xb = x.bfloat16().double()
r = x.double() + (F.silu(xb @ W.double() + B.double()) * 1.702 + 0.5)
rm = lambda a: (a.double() - r).pow(2).mean().sqrt().item()
print("max|e-c|", (e-c).abs().max().item(), "rmse eager vs fp64", rm(e), "compiled vs fp64", rm(c))
