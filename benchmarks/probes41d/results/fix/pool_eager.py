"""Offline evaluation harness: score validation shards in a spawn process pool.

The scorer is wrapped with torch.compile once in the parent and the wrapper is
handed to Pool.map, as in pymc-devs/pytensor#1072 (2024, "Pytorch compiled
functions are not pickable", pointing at pytorch/pytorch#101107).
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


def score_shard(shard):
    x, y = shard
    torch.manual_seed(0)
    w = torch.randn(16, 2) * 0.5
    logits = x @ w
    loss = F.cross_entropy(logits, y)
    acc = (logits.argmax(-1) == y).float().mean()
    return torch.stack([loss, acc])


# compile once in the parent, reuse in every worker
fast_score = torch.compile(score_shard)


torch.compiler.set_stance("force_eager")
def main():
    shards = [make_shard(s) for s in range(4)]
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.map(fast_score, shards)
    results = [(round(float(r[0]), 4), round(float(r[1]), 4)) for r in results]
    for i, (loss, acc) in enumerate(results):
        print(f"shard {i}: loss={loss:.4f} acc={acc:.4f}")
    mean = sum(r[0] for r in results) / len(results)
    print(f"mean loss {mean:.4f}")


if __name__ == "__main__":
    main()
