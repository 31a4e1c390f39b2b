"""CUDA graphs re-recorded (GPU): mode="reduce-overhead" called with three input sizes records a
CUDA graph per size (pytorch/pytorch#128424: "GPU memory continuously grows"; #131387 and
#188913 on re-recording per distinct size). On torch 2.11 the second size recompiles with a
dynamic size and cudagraph_trees records again for 512 and 1024: three recordings, at the
call that brought the second size (issue 29 §6)."""
import torch


def fn(x):
    return torch.sin(x) * 2 + 1


opt = torch.compile(fn, mode="reduce-overhead")
for n in (256, 512, 1024):
    x = torch.randn(n, device="cuda")
    for _ in range(3):
        out = opt(x)  # <- diagnosis (the call that brought 512)
torch.cuda.synchronize()
print("ok", out.shape)
