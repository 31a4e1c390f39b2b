"""pytorch/pytorch#175966 ("Silently incorrect results for torch.arange + Inductor",
https://github.com/pytorch/pytorch/issues/175966, open, pt2: ubn) and its twin #183901 ("torch.compile
produces int32-overflowed results for int64 arange multiplication on CUDA", open): an int64
arange times an int64 tensor holding 1e9, on CUDA. Eager gives 0, 1e9, ..., 1e10; the Inductor
kernel computes the product from its 32-bit index (`tmp0 = 1000000000*x0`), so from 3e9 on the
values wrap: -1294967296, -294967296, ... (differing from eager's by multiples of 2**32).
Should reproduce on torch 2.11: #183901 reproduced it on 2.13.0.dev20260514+cu130 on an H100,
and the one proposed fix (PR #176004) was closed unmerged; torch 2.13.0+cpu wraps the same values.
The issue's repro, printing both."""
import torch


def kek(x):
    return torch.arange(0, 11, device=x.device, dtype=torch.int64) * torch.tensor([int(1e9)], dtype=torch.int64, device=x.device)  # noqa: E501


x = torch.zeros(1, device="cuda")
eager = kek(x)
compiled = torch.compile(kek, backend="inductor")(x)
print("eager   :", eager.tolist())
print("compiled:", compiled.tolist())
