"""Prefix-LM evaluation with FlexAttention: each batch has its own prompt (prefix) length, the
prefix attends bidirectionally and the rest causally. A new BlockMask is built per batch.
"""
import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

device = "cuda"
torch.manual_seed(0)
B, H, S, D = 4, 8, 1024, 64


class PrefixLMAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(H * D, 3 * H * D)
        self.proj = nn.Linear(H * D, H * D)

    def forward(self, x, block_mask):
        q, k, v = self.qkv(x).view(B, S, 3, H, D).permute(2, 0, 3, 1, 4)
        y = flex_attention(q, k, v, block_mask=block_mask)
        return self.proj(y.transpose(1, 2).reshape(B, S, H * D))


model = PrefixLMAttention().to(device, torch.bfloat16).eval()
cmodel = torch.compile(model)
prefix_lengths = [128, 200, 64, 320, 256, 96, 384, 160, 448, 512]


def prefix_lm_mask(b, h, q_idx, kv_idx):
    return (kv_idx < prefix_len) | (q_idx >= kv_idx)


with torch.no_grad():
    for step, prefix_len in enumerate(prefix_lengths):
        block_mask = create_block_mask(prefix_lm_mask, None, None, S, S, device=device)
        x = torch.randn(B, S, H * D, device=device, dtype=torch.bfloat16)
        out = cmodel(x, block_mask)
        print(f"batch {step} prefix {prefix_len} out {out.float().abs().mean().item():.4f}")
