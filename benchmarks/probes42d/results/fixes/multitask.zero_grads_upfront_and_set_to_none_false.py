"""Multi-task training with one head per task and a compiled optimizer step.

Each batch comes from a single task (round-robin task sampling, as in
multi-task fine-tuning), so only the shared trunk and that task's head get
gradients; opt.zero_grad() leaves the other heads' .grad as None. The AdamW step
is compiled as in PyTorch's "Compiled optimizer with an LR scheduler" tutorial
(tensor lr, torch.compile around opt.step()).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_TASKS = 10


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=16, hidden=32, num_tasks=NUM_TASKS):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(hidden, 1) for _ in range(num_tasks))

    def forward(self, x, task):
        return self.heads[task](self.trunk(x))


model = MultiTaskNet()
opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(3e-3), weight_decay=0.01)
sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=10)


@torch.compile(fullgraph=False)
def opt_step():
    opt.step()


for p in model.parameters(): p.grad = torch.zeros_like(p)
g = torch.Generator().manual_seed(1)
task_w = torch.randn(NUM_TASKS, 16, generator=g)
for step in range(2 * NUM_TASKS):
    task = step % NUM_TASKS
    x = torch.randn(64, 16, generator=g)
    y = (x @ task_w[task]).tanh().unsqueeze(1)
    loss = F.mse_loss(model(x, task), y)
    loss.backward()
    opt_step()
    sched.step()
    opt.zero_grad(set_to_none=False)
    if step % 5 == 4:
        print(f"step {step} task {task} loss {loss.item():.5f}")
