"""Click-stream feature: event counts per time bucket, for several windows.

Timestamps are seconds relative to the session's reference time (events
logged before it have negative offsets).  Each window maps an event to
bucket floor(dt / window); bucket -1 holds the pre-reference events, which
the feature drops.  window = inf is the "whole session" setting.
"""
import math
import torch

torch.manual_seed(0)
WINDOWS = torch.tensor([60.0, 300.0, 3600.0, math.inf])
N_BUCKETS = 4
N_EVENTS = 64


@torch.compile
def bucket_counts(dt, windows):
    bucket = dt[None, :] // windows[:, None]       # Python floor-division semantics
    valid = (bucket >= 0) & (bucket < N_BUCKETS)
    idx = bucket.clamp(0, N_BUCKETS - 1).long()
    counts = torch.zeros(len(windows), N_BUCKETS).scatter_add_(1, idx, valid.float())
    return counts


for session in range(3):
    dt = torch.empty(N_EVENTS).uniform_(-600.0, 7200.0)   # some events precede the reference
    counts = bucket_counts(dt, WINDOWS)
    print(f"session {session} (pre-reference events: {(dt < 0).sum().item()})")
    for w, c in zip(WINDOWS.tolist(), counts.int().tolist()):
        print(f"  window {w:>7}: {c}")
