# A transformer MLP whose bias + GELU epilogue is a hand-written Triton kernel,
# launched directly from the module; the block is served with torch.compile.
import torch
import torch.nn as nn
import triton
import triton.language as tl

torch.manual_seed(0)
device = "cuda"


@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, out_ptr, n_elements, n_cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0)
    y = x + b
    inner = 0.7978845608028654 * (y + 0.044715 * y * y * y)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0  # tanh
    tl.store(out_ptr + offs, 0.5 * y * (1.0 + t), mask=mask)


def bias_gelu(x, bias):
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: [triton.cdiv(n, meta["BLOCK"])]
    bias_gelu_kernel[grid](x, bias, out, n, x.shape[-1], BLOCK=1024)
    return out


class TritonMLP(nn.Module):
    def __init__(self, d=256, hidden=1024):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden, bias=False)
        self.b1 = nn.Parameter(torch.zeros(hidden))
        self.fc2 = nn.Linear(hidden, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        h = bias_gelu(self.fc1(self.norm(x)), self.b1)
        return x + self.fc2(h)


model = TritonMLP().to(device)
cmodel = torch.compile(model)
x = torch.randn(16, 128, 256, device=device)
with torch.no_grad():
    out = cmodel(x)
    ref = x + model.fc2(nn.functional.gelu(model.fc1(model.norm(x)), approximate="tanh"))
print(f"max |triton - torch|: {(out - ref).abs().max().item():.2e}")

with torch.no_grad():
    for step in range(5):
        xb = torch.randn(16, 128, 256, device=device)
        y = cmodel(xb)
        print(f"batch {step}: out rms {y.pow(2).mean().sqrt().item():.5f}")
