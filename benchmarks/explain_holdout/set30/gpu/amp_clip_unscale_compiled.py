"""fp16 mixed-precision training on CUDA with a GradScaler and gradient clipping, following the
AMP recipe (unscale_, then clip_grad_norm_, then scaler.step). The clipping helper is compiled
to fuse the foreach norm and scaling kernels. GradScaler's methods live in torch.amp, which
Dynamo does not trace (MOD_SKIPLIST): scaler.unscale_(opt) breaks the compiled helper at its
first line ("Attempted to inline function marked as skipped": GradScaler.unscale_), and the
clip runs in a graph of its own. The fix: call scaler.unscale_(opt) before the compiled
helper and compile only the clipping (or leave the helper uncompiled)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(),
                      nn.Linear(1024, 8)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler("cuda")


@torch.compile
def unscale_and_clip(max_norm: float = 1.0):
    scaler.unscale_(opt)
    return torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)


data = torch.randn(512, 256, device=device)
target = torch.randint(0, 8, (512,), device=device)
for step in range(24):
    sl = slice(step % 8 * 64, step % 8 * 64 + 64)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = F.cross_entropy(model(data[sl]), target[sl])
    scaler.scale(loss).backward()
    gnorm = unscale_and_clip()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad(set_to_none=True)
    if step % 8 == 7:
        print(f"step {step + 1}: loss {loss.item():.2f}, clipped {bool(gnorm > 1.0)}")
