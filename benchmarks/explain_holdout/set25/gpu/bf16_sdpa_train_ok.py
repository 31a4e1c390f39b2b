import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
device = "cuda"


class Block(nn.Module):
    def __init__(self, dim=384, heads=6):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(att.transpose(1, 2).reshape(b, s, d))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab=4096, dim=384, depth=4, seq=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, seq, dim))
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx, targets):
        x = self.blocks(self.tok(idx) + self.pos)
        logits = self.head(x)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


model = TinyGPT().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=(device == "cuda"))
compiled = torch.compile(model)

tokens = torch.randint(0, 4096, (64, 257), device=device)
for step in range(6):
    batch = tokens[torch.randperm(64, device=device)[:16]]
    with torch.autocast(device, dtype=torch.bfloat16):
        loss = compiled(batch[:, :-1], batch[:, 1:])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
