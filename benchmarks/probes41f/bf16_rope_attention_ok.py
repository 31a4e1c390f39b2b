"""Rotary-embedding self-attention block running in bfloat16 on the CPU.

Correct cousin for the bf16 cases: compiled and eager outputs differ only by
bf16 rounding (Inductor keeps the fused q*cos + rotate_half(q)*sin in float32
and rounds once; eager rounds after every op).  Follows
pytorch/pytorch#182225 (bf16 RoPE mismatch, closed as expected rounding).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(123)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_tables(seq, dim, base=10000.0):
    inv = 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    ang = torch.outer(torch.arange(seq, dtype=torch.float32), inv)
    emb = torch.cat((ang, ang), dim=-1)
    return emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)


class RopeAttention(nn.Module):
    def __init__(self, d_model=64, heads=4):
        super().__init__()
        self.h, self.dh = heads, d_model // heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o(att.transpose(1, 2).reshape(b, t, -1))


def main():
    model = RopeAttention().to(torch.bfloat16).eval()
    cos, sin = rope_tables(seq=32, dim=16)
    x = torch.randn(2, 32, 64, dtype=torch.bfloat16)
    fast = torch.compile(model)
    with torch.no_grad():
        for i in range(3):
            y = fast(x + 0.1 * i, cos, sin)
            print(f"call {i}: out mean {y.float().mean().item():+.3f} "
                  f"rms {y.float().pow(2).mean().sqrt().item():.3f}")


if __name__ == "__main__":
    main()
