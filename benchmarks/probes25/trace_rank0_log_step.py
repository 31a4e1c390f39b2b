"""Two-rank data-parallel training on gloo with a compiled step; rank 0 logs the loss from
inside the compiled step. Run as torchrun --standalone --nproc-per-node 2 with TORCH_TRACE set."""
import torch
import torch.distributed as dist
import torch.nn as nn

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def train_step(x, y):
    loss = nn.functional.mse_loss(model(x), y)
    if dist.get_rank() == 0:
        print(f"loss {loss.detach()}")
    return loss


for step in range(4):
    torch.manual_seed(100 * rank + step)
    x, y = torch.randn(8, 16), torch.randn(8, 1)
    loss = train_step(x, y)
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= dist.get_world_size()
    opt.step()
    opt.zero_grad()
dist.destroy_process_group()
