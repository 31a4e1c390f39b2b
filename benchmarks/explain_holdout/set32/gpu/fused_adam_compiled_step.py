"""A small MLP trained on CUDA with Adam(fused=True), and the optimizer step compiled as in the
"compiled optimizer" recipe. The two do not combine: Dynamo wraps torch.optim's fused kernels
(_fused_adam and the others) in torch.compiler.disable ("don't trace into fused optimizer"), so
the compiled opt.step() breaks the graph inside Adam's update on every call and the update runs
eagerly: the compile costs time and buys nothing. The fix: for a compiled step keep the default
(foreach) implementation, fused=False, and let Inductor fuse the update; or keep fused=True and
call opt.step() without torch.compile."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
model = nn.Sequential(nn.Linear(128, 512), nn.GELU(), nn.Linear(512, 512), nn.GELU(),
                      nn.Linear(512, 16)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)


@torch.compile
def opt_step():
    opt.step()


X = torch.randn(1024, 128, device=device)
Y = torch.randint(0, 16, (1024,), device=device)
for step in range(24):
    idx = slice(step % 8 * 128, step % 8 * 128 + 128)
    loss = F.cross_entropy(model(X[idx]), Y[idx])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt_step()
    if step % 8 == 7:
        print(f"step {step + 1}: loss {loss.item():.3f}")
