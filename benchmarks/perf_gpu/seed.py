"""A user's inference loop over a seed model: what `compdiag perf --modes ...` runs.

    python seed.py resnet50|bert|tiny [--batch N] [--steps N] [--device cuda|cpu]

It compiles with plain `torch.compile(model)` (compdiag perf sets the mode) and runs --steps
forward passes under no_grad."""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import NAMES, build  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("model", choices=NAMES)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--steps", type=int, default=50)
p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
a = p.parse_args()

model, call = build(a.model, a.device, a.batch)
opt = torch.compile(model)
with torch.no_grad():
    for _ in range(a.steps):
        out = call(opt)
    checksum = float(out.float().abs().mean())
if a.device.startswith("cuda"):
    torch.cuda.synchronize()
print(f"{a.model}: {a.steps} steps, batch {a.batch}, output {tuple(out.shape)}, "
      f"mean |out| {checksum:.4f}")
