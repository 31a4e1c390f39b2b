"""A token-merging encoder on two gloo ranks: each rank pads its shard of sequences to the
shard's own longest length, then a compiled encoder merges neighbouring tokens in pairs."""
import torch
import torch.distributed as dist
import torch.nn as nn

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
D = 8
proj = nn.Linear(2 * D, D)


@torch.compile
def encode(tokens):
    b, t, d = tokens.shape
    merged = tokens.view(b, t // 2, 2 * d)
    return proj(merged).mean(1)


lengths = [[16, 12, 9, 14], [11, 15, 7, 13]][rank]
seqs = [torch.randn(n, D) for n in lengths]
batch = nn.utils.rnn.pad_sequence(seqs, batch_first=True)
emb = encode(batch)
dist.all_reduce(emb)
print(f"rank {rank}: pooled {tuple(emb.shape)} sum {emb.sum().item():.4f}")
dist.destroy_process_group()
