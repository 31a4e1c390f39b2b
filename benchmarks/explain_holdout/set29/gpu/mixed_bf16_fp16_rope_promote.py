"""Training a bf16 decoder block compiled with torch.compile. The rotary tables come from an
older fp16 code path (RotaryCache builds cos/sin in float16 and keeps them as plain attributes,
so model.to(torch.bfloat16) does not convert them). bfloat16 * float16 promotes to float32:
q and k leave the rotary step in fp32 while v stays bf16, and scaled_dot_product_attention
refuses mixed dtypes ("Expected query, key, and value to have the same dtype"). Dynamo meets it
while running the graph on fake tensors and stops at the attention call; the cause is the
rotary lines above it. The fix: build the tables in the model's dtype, or cast them with
.to(q.dtype) (register them as buffers so .to() converts them)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
DIM, HEADS, SEQ = 512, 8, 256


class RotaryCache:
    def __init__(self, head_dim, seq):
        inv = 1.0 / 10000 ** (torch.arange(0, head_dim, 2).float() / head_dim)
        ang = torch.outer(torch.arange(seq).float(), inv).repeat(1, 2)
        self.cos = ang.cos().to(device, torch.float16)
        self.sin = ang.sin().to(device, torch.float16)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.rope = RotaryCache(DIM // HEADS, SEQ)

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.norm(x)).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        cos, sin = self.rope.cos[:T], self.rope.sin[:T]
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
