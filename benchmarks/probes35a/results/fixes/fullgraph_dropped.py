# torch's "compile the optimizer step and the LR scheduler together" pattern, with
# fullgraph=True added so that any graph break is an error.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=torch.tensor(0.05), momentum=0.9)
sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)


@torch.compile
def update():
    opt.step()
    sched.step()


x = torch.randn(64, 16)
y = torch.randint(0, 4, (64,))
for it in range(8):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    update()
    print(f"it {it} loss {loss.item():.4f} lr {opt.param_groups[0]['lr'].item():.4f}")
