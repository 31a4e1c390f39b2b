# Chunked mean-pooling of feature sequences whose length must be a multiple of CHUNK.
# A helper raises NeedsPadding (carrying the pad amount) and the compiled function
# catches it and pads; nothing escapes the compiled function.
# Related: pytorch/pytorch#196042 (super().__init__() in a user exception class).
import torch
import torch.nn.functional as F

CHUNK = 8


class NeedsPadding(ValueError):
    def __init__(self, length, multiple):
        super().__init__(f"length {length} is not a multiple of {multiple}")
        self.pad = (-length) % multiple


def check_length(x):
    if x.shape[-1] % CHUNK:
        raise NeedsPadding(x.shape[-1], CHUNK)


@torch.compile  # compdiag fix: drop fullgraph=True
def chunk_pool(x):
    try:
        check_length(x)
    except NeedsPadding as e:
        x = F.pad(x, (0, e.pad))
    return x.unflatten(-1, (-1, CHUNK)).mean(-1)


torch.manual_seed(0)
for length in (32, 64, 45):
    feats = torch.randn(4, 16, length)
    out = chunk_pool(feats)
    print(f"length {length} -> {tuple(out.shape)} sum {out.sum().item():.4f}")
