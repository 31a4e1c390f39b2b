"""A small transformer encoder block that picks its autocast dtype inside forward (bf16 where the
GPU supports it, fp16 elsewhere), so the same module runs on older cards; compiled for training."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class Block(nn.Module):
    def __init__(self, dim=256, heads=8):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        amp_dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        with torch.autocast("cuda", dtype=amp_dtype):
            b, t, d = h.shape
            q, k, v = self.qkv(h).view(b, t, 3, self.heads, d // self.heads).unbind(2)
            a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
            x = x + self.proj(a.transpose(1, 2).reshape(b, t, d)).float()
            x = x + self.mlp(self.norm2(x)).float()
        return x


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem, self.head = nn.Linear(64, 256), nn.Linear(256, 10)
        self.b1, self.b2 = Block(), Block()

    def forward(self, x):
        return self.head(self.b2(self.b1(self.stem(x))).mean(dim=1))


model = Encoder().to(device)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

for step in range(5):
    x = torch.randn(16, 128, 64, device=device)
    y = torch.randint(0, 10, (16,), device=device)
    loss = F.cross_entropy(compiled(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")
