"""PyTorch's test/distributed/test_dynamo_distributed.py::TestMultiProc::
test_compiler_collectives_automatic_dynamic_tensor (ranks fed batches of different sizes compile
a different number of times unless compiler collectives keep them in step; the test asserts
equal compile counts), as a user's two-rank DDP job on gloo without compiler collectives.

The dataset is sharded by hand and the shards are uneven: rank 0 gets 16 samples, rank 1 gets
9, so with batches of 8 rank 1's last batch holds one sample. The program marks the batch
dimension dynamic to avoid a recompile per batch size, but a dimension of size 1 is
specialised (the 0/1 specialisation; the guard is `2 <= size[0] <= 4096`), so rank 1 alone
recompiles the model (forward and backward) at its last step, while rank 0, with no new
shape, goes straight on to DDP's gradient all-reduce and waits for it. Both ranks finish.

    python -m torch.distributed.run --nproc-per-node 2 uneven_last_batch_size_one.py
"""
import datetime

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
ddp = DDP(torch.compile(model))
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)

torch.manual_seed(rank)
dataset = torch.randn(25, 16)
shard = dataset[:16] if rank == 0 else dataset[16:]
for step, x in enumerate(shard.split(8)):
    torch._dynamo.mark_dynamic(x, 0)
    loss = ddp(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"rank {rank} step {step} batch {x.shape[0]} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
