"""fp16 mixed precision with GradScaler, where the compiled forward/loss function also skips a
batch whose loss is inf/NaN by returning None (a common guard copied from eager training loops,
next to GradScaler's own skipping of steps with inf/NaN gradients). The check is a Python `if` on
a CUDA tensor inside the compiled function: Dynamo cannot trace a branch on a tensor's value and
breaks the graph there ("Data-dependent branching", gb0170), with a device sync each step.
The fix: keep the check out of the compiled function, or make it branchless (torch.nan_to_num /
torch.where) and let GradScaler skip the bad steps."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda"

model = nn.Sequential(
    nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 10)
).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda", init_scale=2.0**16)


@torch.compile
def forward_loss(x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
    if not torch.isfinite(loss):  # skip a bad batch
        return None
    return loss


skipped = 0
for step in range(12):
    x = torch.randn(256, 512, device=device)
    y = torch.randint(0, 10, (256,), device=device)
    loss = forward_loss(x, y)
    if loss is None:
        skipped += 1
        continue
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    if step % 4 == 0:
        print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f}")
print("skipped batches", skipped)
