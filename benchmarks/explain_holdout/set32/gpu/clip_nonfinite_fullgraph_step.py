"""An MLP regressor trained on CUDA with bf16 autocast; the optimizer step is compiled with
fullgraph=True (the "compile the optimizer" recipe), together with gradient clipping. The clip
passes error_if_nonfinite=True, so clip_grad_norm_ raises if the total norm is inf or NaN:
inside torch that is `if error_if_nonfinite and torch.logical_or(total_norm.isnan(),
total_norm.isinf()):`, a Python branch on a CUDA tensor's value. Dynamo cannot trace a
data-dependent branch, and under fullgraph=True that is an error at the first step instead of a
graph break. The fix: drop error_if_nonfinite (check torch.isfinite(norm) outside the compiled
step, or let the GradScaler-style skip do it), or compile without fullgraph."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.SiLU(), nn.Linear(256, 256), nn.SiLU(),
                      nn.Linear(256, 1)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)


@torch.compile(fullgraph=True)
def clip_and_step():
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
    opt.step()
    return norm


X = torch.randn(512, 64, device=device)
Y = (X[:, :8].sum(1, keepdim=True) * 0.5).tanh()
for step in range(20):
    idx = slice(step % 8 * 64, step % 8 * 64 + 64)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.mse_loss(model(X[idx]).float(), Y[idx])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    norm = clip_and_step()
    if step % 5 == 4:
        print(f"step {step + 1}: loss {loss.item():.4f} grad norm {norm.item():.3f}")
