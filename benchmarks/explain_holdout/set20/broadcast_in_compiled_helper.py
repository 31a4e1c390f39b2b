"""PR #174032 ("[dynamo] Add broadcast to traceable_collective_remaps",
https://github.com/pytorch/pytorch/pull/174032, closed, for #162483): `dist.broadcast` called
inside a compiled function is not traced; Dynamo graph-breaks on it ("Attempted to call
function marked as skipped": torch.distributed's broadcast is on the skip list, unlike
all_reduce, all_gather_into_tensor and reduce_scatter_tensor, which are remapped to functional
collectives). Run as a real two-rank job on gloo.

The compiled training step calls a helper that samples a dropout-style keep mask and
broadcasts it from rank 0 so every rank drops the same features; the broadcast, two calls deep,
splits the step into two graphs on every rank (torch names the helper's line).

    python -m torch.distributed.run --nproc-per-node 2 broadcast_in_compiled_helper.py
"""
import datetime

import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()


def shared_feature_mask(n, p):
    mask = (torch.rand(n) > p).float()
    dist.broadcast(mask, src=0)
    return mask / (1.0 - p)


def encode(x, w1, w2):
    h = torch.relu(x @ w1)
    h = h * shared_feature_mask(h.shape[1], 0.25)
    return h @ w2


@torch.compile
def step(x, y, w1, w2):
    pred = encode(x, w1, w2)
    return torch.nn.functional.mse_loss(pred, y)


torch.manual_seed(0)
w1 = torch.randn(16, 32, requires_grad=True)
w2 = torch.randn(32, 4, requires_grad=True)
torch.manual_seed(100 + rank)
for it in range(3):
    x, y = torch.randn(8, 16), torch.randn(8, 4)
    loss = step(x, y, w1, w2)
    loss.backward()
    for w in (w1, w2):
        dist.all_reduce(w.grad)
        with torch.no_grad():
            w -= 0.01 * w.grad / dist.get_world_size()
        w.grad = None
    print(f"rank {rank} step {it} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
