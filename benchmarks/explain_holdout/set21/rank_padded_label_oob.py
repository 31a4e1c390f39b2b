"""One rank fails inside a compiled kernel while the other waits at a collective (the gloo message
the survivor gets, "Connection closed by peer ... This is typically caused by a remote worker
crashing. Check the logs of the remote worker", from pytorch/gloo#489,
https://github.com/pytorch/gloo/pull/489), as a real two-rank job on gloo.

Each rank reads its own label shard. Rank 1's shard is shorter and its second batch is padded
with the label -100 (cross_entropy's ignore_index convention), but the program's hand-written
loss picks the target logit with `gather`, which knows nothing of ignore_index. The compiled
kernel on rank 1 checks the index and raises "index out of bounds: 0 <= tmp < 10" (torch names
only the compiled function's decorator); rank 0, already in the gradient all-reduce, gets
"Connection closed by peer" and the launcher stops it. The cause is rank 1's padded labels at the
`gather`; rank 0's error is its consequence.

    python -m torch.distributed.run --nproc-per-node 2 rank_padded_label_oob.py
"""
import datetime

import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
NUM_CLASSES = 10
PAD = -100

torch.manual_seed(0)
emb = torch.nn.Embedding(50, 16)
head = torch.nn.Linear(16, NUM_CLASSES)
params = list(emb.parameters()) + list(head.parameters())


@torch.compile
def loss_fn(tokens, labels):
    logits = head(emb(tokens).mean(dim=1))
    target_logit = logits.gather(1, labels[:, None]).squeeze(1)
    return (torch.logsumexp(logits, dim=1) - target_logit).mean()


torch.manual_seed(rank)
n = 8 if rank == 0 else 6
labels = torch.randint(0, NUM_CLASSES, (n,))
labels = torch.cat([labels, torch.full((8 - n,), PAD)])
tokens = torch.randint(0, 50, (8, 6))
for step, (tok, lab) in enumerate(zip(tokens.split(4), labels.split(4))):
    loss = loss_fn(tok, lab)
    loss.backward()
    for p in params:
        dist.all_reduce(p.grad)
        p.grad = None
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
