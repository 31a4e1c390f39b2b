"""Correct cousin of multitask_heads_compiled_adamw.py: the same multi-task net and
compiled AdamW step, but every batch mixes all tasks (each sample carries its
task id and the loss takes each sample's own head), so every head gets a
gradient on every step and no .grad is ever None at the compiled step.
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

    def forward(self, x, task_ids):
        h = self.trunk(x)
        all_heads = torch.cat([head(h) for head in self.heads], dim=1)
        return all_heads.gather(1, task_ids[:, None])


model = MultiTaskNet()
opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(3e-3), weight_decay=0.01)
sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=10)


@torch.compile(fullgraph=False)
def opt_step():
    opt.step()


g = torch.Generator().manual_seed(1)
task_w = torch.randn(NUM_TASKS, 16, generator=g)
for step in range(2 * NUM_TASKS):
    task_ids = torch.arange(64) % NUM_TASKS
    x = torch.randn(64, 16, generator=g)
    y = (x * task_w[task_ids]).sum(1).tanh().unsqueeze(1)
    loss = F.mse_loss(model(x, task_ids), y)
    loss.backward()
    opt_step()
    sched.step()
    opt.zero_grad()
    if step % 5 == 4:
        print(f"step {step} loss {loss.item():.5f}")
