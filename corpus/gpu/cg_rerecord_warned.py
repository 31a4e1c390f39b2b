"""CUDA graphs re-recorded past torch's own warning (GPU): a dynamic dimension under
mode="reduce-overhead" records one CUDA graph per distinct size; past
cudagraph_dynamic_shape_warn_limit (8) cudagraph_trees warns "We have observed 9 distinct
sizes" (pytorch/pytorch#119640: "If dynamic shapes runtime CUDA graphs never quiesces, should
loudly warn / easy to diagnose"; #188150). The call that brings the new sizes is the line."""
import torch


def fn(x):
    return torch.cos(x) + 1


opt = torch.compile(fn, mode="reduce-overhead", dynamic=True)
for n in range(16, 28):
    out = opt(torch.randn(n, device="cuda"))  # <- diagnosis
torch.cuda.synchronize()
print("ok", out.shape)
