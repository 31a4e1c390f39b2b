"""The check on `compdiag perf`'s numbers: the same model timed with no compdiag at all, the way
a user would time it by hand (CUDA events between synchronisations, the whole model call, eager
then torch.compile(model, mode=MODE)), in blocks that alternate eager and compiled.

    python plain_timing.py MODEL --mode M [--batch N] [--device D] [--samples N]

Prints one JSON object: per-call medians (s) of eager and compiled, the speed-up (ratio of
medians) and the spread of the per-block ratios (min, quartiles, max), the first compiled call's wall
time, and the CUDA allocator's peak."""

import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import NAMES, build  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("model", choices=NAMES)
p.add_argument("--mode", default="default")
p.add_argument("--batch", type=int, default=32)
p.add_argument("--samples", type=int, default=21)
p.add_argument("--block-s", type=float, default=0.05, help="seconds per timed block")
p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
a = p.parse_args()
cuda = a.device.startswith("cuda")


def sync() -> None:
    if cuda:
        torch.cuda.synchronize()


def block(fn, n: int) -> float:
    """Seconds per call over n back-to-back calls."""
    sync()
    if cuda:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / n
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


model, call = build(a.model, a.device, a.batch)
opt = torch.compile(model, mode=None if a.mode == "default" else a.mode)
with torch.no_grad():
    t0 = time.perf_counter()
    call(opt)
    sync()
    first_call_s = time.perf_counter() - t0
    eager = lambda: call(model)  # noqa: E731
    compiled = lambda: call(opt)  # noqa: E731
    for _ in range(5):  # warm-up: lazy init, CUDA-graph recording, autotune caches
        eager()
        compiled()
    n = max(1, int(a.block_s / max(block(eager, 3), 1e-6)))
    e, c = [], []
    for i in range(a.samples):
        pair = [(e, eager), (c, compiled)] if i % 2 == 0 else [(c, compiled), (e, eager)]
        for out, fn in pair:
            out.append(block(fn, n))
ratios = [x / y for x, y in zip(e, c)]
print(json.dumps({
    "model": a.model, "mode": a.mode, "batch": a.batch, "device": a.device,
    "torch": torch.__version__, "calls_per_block": n, "samples": a.samples,
    "eager_s": statistics.median(e), "compiled_s": statistics.median(c),
    "speedup": statistics.median(e) / statistics.median(c),
    "ratio_min": min(ratios), "ratio_max": max(ratios),
    "ratio_q1": statistics.quantiles(ratios, n=4)[0],
    "ratio_q3": statistics.quantiles(ratios, n=4)[2],
    "first_call_s": first_call_s,
    "peak_cuda_bytes": torch.cuda.max_memory_allocated() if cuda else None,
}))
