"""Byte offsets of fixed-size dataset shards, computed in a compiled helper.

Every shard holds SHARD_BYTES bytes, so the end offsets are a cumulative sum
of a constant int64 tensor; the sampler then picks a global byte position and
finds its shard with searchsorted.  Inductor rewrites `full(...).cumsum()` to
`arange * fill` (post_grad pointless_cumsum_replacement, the pattern behind
pytorch/pytorch#189518) and the CPU kernel evaluates it as a 32-bit index
expression, so the int64 offsets wrap past 2 GiB.  Found by this probe.
"""
import torch

torch.manual_seed(0)
SHARD_BYTES = 384 * 1024 * 1024          # 384 MiB per shard


def shard_table(num_shards: torch.Tensor):
    n = num_shards.shape[0]
    ends = torch.full((n,), SHARD_BYTES, dtype=torch.int64).cumsum(0)
    starts = ends - SHARD_BYTES
    return starts, ends


def locate(positions, ends):
    shard = torch.searchsorted(ends, positions, right=True)
    return shard


def main():
    table = torch.compile(shard_table)
    shards = torch.zeros(12)
    starts, ends = table(shards)
    total = int(ends[-1])
    print(f"shards: {shards.shape[0]}  total bytes: {total}")
    print(f"last shard start: {int(starts[-1])}")
    print("ends (GiB):", [round(int(e) / 2**30, 3) for e in ends])
    g = torch.Generator().manual_seed(1)
    pos = torch.randint(0, 12 * SHARD_BYTES, (8,), generator=g, dtype=torch.int64)
    print("shard of each sampled byte:", locate(pos, ends).tolist())
    monotone = bool((ends[1:] > ends[:-1]).all())
    print(f"offsets increasing: {monotone}")


if __name__ == "__main__":
    main()
