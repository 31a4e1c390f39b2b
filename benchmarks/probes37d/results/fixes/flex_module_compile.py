# Regional compilation of a causal transformer block for CPU inference: the user compiles the
# qkv projection and the MLP submodules, and calls flex_attention from the block's forward.
import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import flex_attention, create_block_mask

torch.manual_seed(0)
D, H, L = 32, 2, 256


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, block_mask):
        q, k, v = self.qkv(x).view(1, L, 3, H, D // H).permute(2, 0, 3, 1, 4)
        a = flex_attention(q, k, v, block_mask=block_mask)
        x = x + a.transpose(1, 2).reshape(1, L, D)
        return x + self.mlp(x)


blocks = nn.ModuleList(Block() for _ in range(2)).eval()
for b in blocks:
    b.qkv = torch.compile(b.qkv)
    b.mlp = torch.compile(b.mlp)
block_mask = create_block_mask(causal, None, None, L, L, device="cpu")
with torch.no_grad():
    for step in range(3):
        x = torch.randn(1, L, D)
        for b in blocks:
            x = b(x, block_mask)
        print(f"step {step} out={x.sum().item():.3f}")
