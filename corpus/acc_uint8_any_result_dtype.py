"""Accuracy (dtype promotion): `any` over a uint8 tensor returns uint8 in eager and bool in
the compiled kernel, so the arithmetic after it promotes differently: eager's uint8 sum wraps
at 256, the compiled one is int64 and does not. Casting the result back (`.to(torch.uint8)`)
is dropped, the graph believes it is uint8 already; `.bool()` on the input agrees."""
import torch

torch.manual_seed(0)


def highlight(frames, votes):
    agreed = votes.any(dim=1)  # <- diagnosis
    return frames + agreed.unsqueeze(1) * 90


frames = torch.randint(150, 256, (2, 3, 8, 8), dtype=torch.uint8)
votes = (torch.rand(2, 3, 8, 8) > 0.3).to(torch.uint8)
out = torch.compile(highlight)(frames, votes)
print(out.dtype, int(out.max()))
