"""pytorch/pytorch#179578 ("`torch.compile` produces different output for single-head attention with
`matmul -> div -> softmax -> dropout -> matmul` pattern (SFDP pattern 11) compared to eager mode",
https://github.com/pytorch/pytorch/issues/179578, open, high priority): "Inductor's scaled
dot-product fusion pass recognizes this pattern and replaces it with an optimized flash attention
kernel that uses a different floating-point accumulation order, causing numerical differences that
propagate through residual connections. Eager mode is perfectly deterministic." The issue's
single-head block (its dropout, p=0 in eval, left out so the graph is pattern 11 exactly), in
float16 so that the pattern applies on CUDA without TF32, and the program's own check that the
compiled block reproduces eager's output, which fails.

Why it should still reproduce on torch 2.11: the fusion (torch/_inductor/fx_passes/
fuse_attention.py, _sfdp_pattern_11 -> _scaled_dot_product_attention) is on by default since 2023
and is unchanged in the torch 2.13 wheel; the issue (April 2026) is open. Float16 q/k/v on CUDA
pass _sfdp_params_check (its TF32 condition concerns float32 only), and the replacement runs
SDPA's flash kernel, whose float32 accumulation differs from eager's float16 matmul -> div ->
softmax -> matmul chain."""
import math

import torch


class SingleHeadAttention(torch.nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.q = torch.nn.Linear(dim, dim)
        self.k = torch.nn.Linear(dim, dim)
        self.v = torch.nn.Linear(dim, dim)
        self.inv_scale = math.sqrt(dim)

    def forward(self, x):
        b, s, d = x.shape
        q = self.q(x).view(b, s, 1, d).permute(0, 2, 1, 3)
        k = self.k(x).view(b, s, 1, d).permute(0, 2, 1, 3)
        v = self.v(x).view(b, s, 1, d).permute(0, 2, 1, 3)
        attn = torch.matmul(q, k.transpose(-2, -1)).div(self.inv_scale).softmax(dim=-1).matmul(v)
        return x + attn.permute(0, 2, 1, 3).reshape(b, s, d)


torch.manual_seed(0)
block = SingleHeadAttention().cuda().half().eval()
x = torch.randn(4, 128, 64, device="cuda", dtype=torch.float16)
with torch.no_grad():
    eager_out = block(x)
    compiled_out = torch.compile(block)(x)
print("max abs difference:", float((compiled_out - eager_out).abs().max()))
torch.testing.assert_close(compiled_out, eager_out, rtol=0, atol=0)
