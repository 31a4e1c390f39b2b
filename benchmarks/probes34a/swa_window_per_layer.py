import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LocalAttentionBlock(nn.Module):
    """Pre-norm block with sliding-window causal self-attention."""

    def __init__(self, dim, heads, window):
        super().__init__()
        self.heads = heads
        self.window = window
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(B, T, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        pos = torch.arange(T, device=x.device)
        dist = pos[:, None] - pos[None, :]
        allowed = (dist >= 0) & (dist < self.window)
        h = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        x = x + self.proj(h.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp(self.norm2(x))


# window grows with depth: the lower layers look locally, the upper ones further back
blocks = nn.ModuleList([LocalAttentionBlock(32, 4, window=4 * (i + 1)) for i in range(10)])
for block in blocks:
    block.compile()  # regional compilation: one compiled block, reused by every layer
embed = nn.Embedding(50, 32)
head = nn.Linear(32, 50)
params = list(blocks.parameters()) + list(embed.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=3e-3)

tokens = torch.randint(0, 50, (8, 48))
for step in range(4):
    x = embed(tokens[:, :-1])
    for block in blocks:
        x = block(x)
    loss = F.cross_entropy(head(x).reshape(-1, 50), tokens[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
