# Classifier CLI: build and warm up the compiled model first (so the first request is
# fast), then check the arguments against the model; a bad --topk exits with status 2
# through argparse, as a CLI should. The default --topk predates the 5-class model.
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser(prog="classify")
parser.add_argument("--topk", type=int, default=10)
parser.add_argument("--batch", type=int, default=16)
args = parser.parse_args()

torch.manual_seed(0)
NUM_CLASSES = 5
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES)).eval()
cmodel = torch.compile(model)
with torch.no_grad():
    warm = cmodel(torch.randn(args.batch, 20))
print("warmup done", tuple(warm.shape))

if not 1 <= args.topk <= NUM_CLASSES:
    parser.error(f"--topk must be between 1 and {NUM_CLASSES}, got {args.topk}")

with torch.no_grad():
    probs = cmodel(torch.randn(args.batch, 20)).softmax(-1)
top = probs.topk(args.topk, dim=-1)
print("top classes of first row", top.indices[0].tolist())
