"""A fused bias + squared-ReLU written as a user Triton kernel and wrapped, as the custom-op
tutorial suggests, in torch.library.custom_op so that torch.compile treats it as opaque. The
wrapper has no register_fake: Dynamo must run every op with fake tensors to learn its output's
shape and dtype, and a custom_op without a fake impl cannot run on them. The compiled MLP fails
at the call of the op (line 40, "There was no fake impl registered"), before any kernel runs.
The fix: @squared_relu_bias.register_fake returning torch.empty_like(x) (or use
torch.library.triton_op with wrap_triton, which derives the fake impl)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

device = "cuda"
torch.manual_seed(0)


@triton.jit
def _sq_relu_bias_kernel(x_ptr, b_ptr, out_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(x_ptr + offs, mask=mask) + tl.load(b_ptr + offs % cols, mask=mask)
    y = tl.maximum(y, 0.0)
    tl.store(out_ptr + offs, y * y, mask=mask)


@torch.library.custom_op("set31::squared_relu_bias", mutates_args=())
def squared_relu_bias(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _sq_relu_bias_kernel[(triton.cdiv(n, 1024),)](x, bias, out, n, x.shape[-1], BLOCK=1024)
    return out


fc1, fc2 = nn.Linear(512, 2048, bias=False).to(device), nn.Linear(2048, 512).to(device)
b1 = torch.zeros(2048, device=device)


@torch.compile
def mlp(x):
    return fc2(squared_relu_bias(fc1(x), b1))


with torch.no_grad():
    for step in range(3):
        x = torch.randn(64, 512, device=device)
        print(f"batch {step}: out mean {mlp(x).mean().item():.4f}")
