"""Offline evaluation harness: score validation shards in a spawn process pool.

Correct cousin of pool_map_compiled_scorer.py: the scorer is decorated with
@torch.compile at module level, so the name the pickler looks up is the
compiled wrapper itself and each spawn worker compiles its own copy
(pymc-devs/pytensor#1072, pytorch/pytorch#101107).
"""
import multiprocessing as mp

import torch
import torch.nn.functional as F


def make_shard(seed, n=64, d=16):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    w = torch.linspace(-1.0, 1.0, d)
    y = (x @ w > 0).long()
    return x, y


@torch.compile
def score_shard(shard):
    x, y = shard
    torch.manual_seed(0)
    w = torch.randn(16, 2) * 0.5
    logits = x @ w
    loss = F.cross_entropy(logits, y)
    acc = (logits.argmax(-1) == y).float().mean()
    return torch.stack([loss, acc])


def main():
    shards = [make_shard(s) for s in range(4)]
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.map(score_shard, shards)
    results = [(round(float(r[0]), 4), round(float(r[1]), 4)) for r in results]
    for i, (loss, acc) in enumerate(results):
        print(f"shard {i}: loss={loss:.4f} acc={acc:.4f}")
    mean = sum(r[0] for r in results) / len(results)
    print(f"mean loss {mean:.4f}")


if __name__ == "__main__":
    main()
