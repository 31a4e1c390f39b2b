# OneCycleLR with a compiled optimizer step, following torch's "compiled optimizer +
# LR scheduler" recipe: lr is a tensor so the scheduler's lr changes do not recompile.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01), betas=(torch.tensor(0.9), torch.tensor(0.999)))
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=torch.tensor(0.05), total_steps=12)


@torch.compile
def opt_step():
    opt.step()


x = torch.randn(64, 16)
y = torch.randint(0, 4, (64,))
for it in range(12):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt_step()
    sched.step()
    lr = opt.param_groups[0]["lr"].item()
    print(f"it {it:2d} loss {loss.item():.4f} lr {lr:.5f}")
