"""Speech encoder over clips of different lengths. Run A is the default; run B
(`--no-auto-dynamic`) is the same program after the author copied
`torch._dynamo.config.automatic_dynamic_shapes = False` from a blog post on avoiding
dynamic shapes. With it off every new clip length compiles again (5 lengths, 5 compiles)
instead of one recompile that makes the length dynamic. `compdiag diff A B` should name the
setting."""
import sys

import torch
import torch.nn as nn

if "--no-auto-dynamic" in sys.argv:
    torch._dynamo.config.automatic_dynamic_shapes = False

torch.manual_seed(0)
encoder = nn.Sequential(
    nn.Conv1d(40, 64, 3, padding=1), nn.ReLU(),
    nn.Conv1d(64, 64, 3, padding=1), nn.ReLU(),
)
encode = torch.compile(encoder)
with torch.no_grad():
    for frames in (100, 160, 220, 300, 410):
        mel = torch.randn(1, 40, frames)
        out = encode(mel)
        print(frames, tuple(out.shape))
