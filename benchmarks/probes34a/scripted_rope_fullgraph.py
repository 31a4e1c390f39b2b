import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class RotaryEmbedding(nn.Module):
    def __init__(self, head_dim: int, max_len: int = 256):
        super().__init__()
        inv_freq = 1.0 / 10000 ** (torch.arange(0, head_dim, 2).float() / head_dim)
        freqs = torch.outer(torch.arange(max_len).float(), inv_freq)
        self.register_buffer("cos", torch.cat([freqs, freqs], -1).cos(), persistent=False)
        self.register_buffer("sin", torch.cat([freqs, freqs], -1).sin(), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T = x.size(-2)
        x1, x2 = x.chunk(2, dim=-1)
        rotated = torch.cat([-x2, x1], dim=-1)
        return x * self.cos[:T] + rotated * self.sin[:T]


class RopeSelfAttention(nn.Module):
    def __init__(self, dim=64, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        # scripted once, shared with the TorchScript export of this block
        self.rotary = torch.jit.script(RotaryEmbedding(dim // heads))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        q, k = self.rotary(q), self.rotary(k)
        h = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(h.transpose(1, 2).reshape(B, T, C))


block = RopeSelfAttention().eval()
fast_block = torch.compile(block, fullgraph=True)
with torch.no_grad():
    for T in (32, 48):
        x = torch.randn(2, T, 64)
        y = fast_block(x)
        print(f"T={T}: out norm {y.norm():.4f}, max |compiled - eager| {(y - block(x)).abs().max():.2e}")
