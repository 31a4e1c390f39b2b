"""pytorch/pytorch#156627 (open, 2025: "`distributed.all_gather()` support for uneven tensors does
not apply to all backends": gloo requires equal sizes), https://github.com/pytorch/pytorch/issues/156627,
met through a functional collective inside a compiled function, as a real two-rank job on gloo.

An evaluation loop shards a validation set of 11 samples by hand (rank 0 gets 6, rank 1 gets 5)
and gathers every rank's predictions in a compiled step with
`torch.distributed._functional_collectives.all_gather_tensor`, which assumes every rank sends
the same shape. Each rank compiles its own static shape, so the compiled graphs issue all-gathers
of different sizes (f32[6, 4] against f32[5, 4]). Gloo on rank 1 aborts the process
("Received data size doesn't match expected size. Is there a distributed collective mismatch in
your code?", SIGABRT); rank 0 gets a gathered tensor of the wrong content and then a
"Connection reset by peer" at the next step. Pad to a common size (or gather sizes first).

    python -m torch.distributed.run --nproc-per-node 2 funcol_uneven_all_gather.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()

torch.manual_seed(0)
head = torch.nn.Linear(16, 4)


@torch.compile
def predict_all(x):
    probs = torch.softmax(head(x), dim=-1)
    return funcol.all_gather_tensor(probs, 0, dist.group.WORLD)


torch.manual_seed(1)
val = torch.randn(11, 16)
shard = val[:6] if rank == 0 else val[6:]
with torch.no_grad():
    for epoch in range(2):
        gathered = predict_all(shard)
        print(f"rank {rank} epoch {epoch} gathered {tuple(gathered.shape)}", flush=True)
dist.destroy_process_group()
