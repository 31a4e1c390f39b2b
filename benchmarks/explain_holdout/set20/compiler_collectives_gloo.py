"""torch._dynamo.config.enable_compiler_collectives (PyTorch's
test/distributed/test_dynamo_distributed.py::TestMultiProc::test_compiler_collectives_* tests,
which run on GPUs only; the TORCH_COMPILER_COLLECTIVES switch of PR #133696,
https://github.com/pytorch/pytorch/pull/133696; the device check of PR #150405,
https://github.com/pytorch/pytorch/pull/150405, "Generalize compile collective to avoid
cuda-bias") on a CPU job: two ranks on gloo turn compiler collectives on so that their
automatic-dynamic decisions stay in step, as the tests do.

On a gloo process group the first compile fails on every rank before any graph runs:
OutputGraph.run_compiler_collective joins the process group's device types as strings, and
gloo's are torch.device objects ("TypeError: sequence item 0: expected str instance,
torch.device found", raised as InternalTorchDynamoError). The same job runs without the
setting.

    python -m torch.distributed.run --nproc-per-node 2 compiler_collectives_gloo.py
"""
import datetime

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

torch._dynamo.config.enable_compiler_collectives = True
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 32)
        self.head = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.head(torch.nn.functional.gelu(self.proj(x)))


torch.manual_seed(0)
model = torch.compile(Encoder())
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)

torch.manual_seed(rank)
for step in range(3):
    x = torch.randn(8 + 2 * step, 16)
    loss = ddp(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
