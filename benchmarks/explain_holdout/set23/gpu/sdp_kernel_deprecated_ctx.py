"""A small decoder-only language model in bf16 on one GPU, compiled for inference.

The attention asks for the FlashAttention backend (math kept as a fallback) with the
`torch.backends.cuda.sdp_kernel` context manager, as older tutorials show."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=False):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab=8192, dim=512, heads=8, depth=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        return self.head(self.blocks(self.emb(idx)))


model = TinyLM().to(device, torch.bfloat16).eval()
compiled = torch.compile(model)

with torch.no_grad():
    for step in range(5):
        idx = torch.randint(0, 8192, (8, 256), device=device)
        logits = compiled(idx)
        print(f"batch {step}: next-token argmax {logits[:, -1].argmax(-1)[:4].tolist()}")
