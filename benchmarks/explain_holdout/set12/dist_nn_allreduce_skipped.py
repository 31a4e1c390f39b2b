"""pytorch/pytorch PR #177342 ("[PT2 Bug Bash] Hard error and deprecate
torch.distributed.nn.functional under torch.compile", https://github.com/pytorch/pytorch/pull/177342,
fixing #119455): the autograd-aware collectives of torch.distributed.nn.functional now raise
"not supported under torch.compile. Use torch.distributed._functional_collectives.all_reduce
instead" when traced. A row-parallel layer that sums its partial output with
torch.distributed.nn.functional.all_reduce (gloo, world size 1), compiled and trained: the
error is raised inside Dynamo's trace, which treats it as an exception it cannot handle and
runs the whole forward in eager, so the training loop never sees the message."""
import tempfile

import torch
import torch.distributed as dist
import torch.distributed.nn.functional as dist_fn


class RowParallelLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.shard = torch.nn.Linear(8, 4)

    def forward(self, x):
        partial = torch.relu(self.shard(x))
        return dist_fn.all_reduce(partial)


dist.init_process_group("gloo", init_method=f"file://{tempfile.mktemp()}", rank=0, world_size=1)
torch.manual_seed(0)
model = torch.compile(RowParallelLinear())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(step, round(loss.item(), 4))
dist.destroy_process_group()
