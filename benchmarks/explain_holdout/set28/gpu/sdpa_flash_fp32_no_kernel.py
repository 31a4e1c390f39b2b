"""A causal self-attention block pins SDPA to FlashAttention with torch.nn.attention.sdpa_kernel
inside the compiled forward, but the model runs in float32 (no autocast, no .half()).
FlashAttention takes only fp16/bf16 inputs, and with every other backend excluded by the context
there is no kernel left: while Dynamo traces the call with fake CUDA tensors, SDPA's backend
choice warns "Flash attention kernel not used because: ... Expected query, key and value to all
be of dtype: {Half, BFloat16}. Got Query dtype: float" and raises "No available kernel.  Aborting
execution.", and the first call ends the program. The fix: run the block under
torch.autocast("cuda", dtype=torch.bfloat16) (or cast q/k/v), or allow a fallback backend,
e.g. sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION])."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)


class CausalSelfAttention(nn.Module):
    def __init__(self, dim=512, heads=8):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, T, C = x.shape
        qkv = self.qkv(x).view(B, T, 3, self.heads, C // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


model = nn.Sequential(CausalSelfAttention(), nn.LayerNorm(512), CausalSelfAttention()).cuda()
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(4):
    x = torch.randn(8, 256, 512, device="cuda")
    loss = compiled(x).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
