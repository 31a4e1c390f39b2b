"""Training a bf16 decoder block compiled with torch.compile, rotary embeddings done right: the
cos/sin tables are registered as non-persistent buffers, so model.to(torch.bfloat16) converts
them with the weights, and q, k, v reach scaled_dot_product_attention in one dtype (bf16, so
the fused attention kernels apply). Fixed shapes, one compile for the forward and one for the
backward, no graph break: nothing to fix."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
DIM, HEADS, SEQ = 512, 8, 256


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)
        head_dim = DIM // HEADS
        inv = 1.0 / 10000 ** (torch.arange(0, head_dim, 2).float() / head_dim)
        ang = torch.outer(torch.arange(SEQ).float(), inv).repeat(1, 2)
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.norm(x)).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        cos, sin = self.cos[:T], self.sin[:T]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.proj(y.transpose(1, 2).reshape(B, T, DIM))


model = Block().to(device, torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
compiled = torch.compile(model)
for step in range(4):
    x = torch.randn(8, SEQ, DIM, device=device, dtype=torch.bfloat16)
    loss = compiled(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step}: loss {loss.item():.2f}")
