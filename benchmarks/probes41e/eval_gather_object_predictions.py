"""Distributed evaluation of a small text classifier on 2 ranks.

Each rank scores its shard; the predictions of all ranks are gathered to
compute a global accuracy and a confusion count.  The whole eval step is
compiled.  Run: torchrun --nproc-per-node 2 THIS.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn


class BagOfWords(nn.Module):
    def __init__(self, vocab=100, dim=24, classes=3):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(dim, 32), nn.Tanh(), nn.Linear(32, classes))

    def forward(self, tokens):
        return self.mlp(self.emb(tokens))


@torch.compile
def eval_step(model, tokens, labels):
    preds = model(tokens).argmax(-1)
    local = torch.stack([preds, labels])
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, local)
    both = torch.cat(gathered, dim=1)
    return (both[0] == both[1]).float().mean(), both


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = BagOfWords().eval()
    g = torch.Generator().manual_seed(10 + rank)
    with torch.no_grad():
        for batch in range(3):
            tokens = torch.randint(0, 100, (8, 12), generator=g)
            labels = torch.randint(0, 3, (8,), generator=g)
            acc, both = eval_step(model, tokens, labels)
            if rank == 0:
                counts = torch.bincount(both[0] * 3 + both[1], minlength=9).view(3, 3)
                print(f"batch {batch} global acc {acc.item():.3f} confusion {counts.tolist()}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
