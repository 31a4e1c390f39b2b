"""Embedding variable-length video clips on CUDA: each clip arrives as a Python list of frame
tensors (4 to 16 frames) and the compiled encoder stacks them. Dynamo guards on the length of
the list (a list is unrolled at trace time, automatic dynamic shapes do not apply to its
length), so every new frame count recompiles the encoder; after 8 compiles torch hits
config.recompile_limit and runs the remaining clip lengths in eager. The fix: stack the frames
before the call (one tensor, its frame dim dynamic after one recompile) or pad clips to a
fixed number of frames."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

frame_net = nn.Sequential(
    nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 128),
).to(device).eval()


@torch.compile
def encode_clip(frames):
    x = torch.stack(frames, dim=0)
    feats = frame_net(x)
    weights = torch.softmax(feats.norm(dim=1), dim=0)
    return (weights[:, None] * feats).sum(dim=0)


gen = torch.Generator().manual_seed(0)
lengths = [4, 6, 8, 10, 12, 14, 16, 5, 7, 9, 11, 13]
with torch.no_grad():
    embs = []
    for n in lengths:
        frames = [torch.randn(3, 64, 64, generator=gen).to(device) for _ in range(n)]
        embs.append(encode_clip(frames))
    embs = torch.stack(embs)
    print("clips:", len(lengths), "embedding dim:", embs.shape[1])
    print("mean norm:", round(embs.norm(dim=1).mean().item(), 2))
