"""A correct program: a small attention block (dim 256, 4 heads of 64) for inference, compiled
with mode="max-autotune-no-cudagraphs" (Triton GEMM templates benchmarked against cuBLAS for its
small projections, no CUDA graphs), SDPA restricted inside the compiled forward with
torch.nn.attention.sdpa_kernel to the two fused backends (Dynamo traces the context manager,
SDPAKernelVariable), bf16 autocast around the call, fixed shapes. Expected: one compile, no graph
break, no recompile, 5 lines of output, exit 0; no problem diagnosis."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class Block(nn.Module):
    def __init__(self, dim=256, heads=4):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.norm(x)).view(B, T, 3, self.heads, C // self.heads).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.out(y.transpose(1, 2).reshape(B, T, C))


model = nn.Sequential(Block(), Block()).cuda().eval()
compiled = torch.compile(model, mode="max-autotune-no-cudagraphs")
x = torch.randn(4, 128, 256, device="cuda")
with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    ref = model(x)
    for i in range(4):
        out = compiled(x)
        print(i, out.dtype, f"{out.float().abs().mean().item():.4f}")
print("max abs diff vs eager", (out.float() - ref.float()).abs().max().item())
