"""Correct program: a small causal decoder (SDPA with is_causal=True) served on CUDA under bf16
autocast with batches whose size and length both change. Prompts come from pinned host memory
with non_blocking copies; the decoder is compiled with dynamic=True and has no Python loop or
branch over the sizes, so one graph with symbolic batch and length serves every request; the
sampling head stays eager. One compile, no graph break, no recompile."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
V, D, H, TMAX = 1000, 128, 4, 64


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.pos = nn.Embedding(V, D), nn.Parameter(torch.randn(TMAX, D) * 0.02)
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, ids):
        B, T = ids.shape
        x = self.emb(ids) + self.pos[:T]
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.ln2(x))


decoder = torch.compile(Decoder().to(device).eval(), dynamic=True)
lm_head = nn.Linear(D, V).to(device).eval()
pin = device == "cuda"
with torch.no_grad():
    for n, (b, t) in enumerate([(2, 16), (5, 24), (3, 40), (8, 33), (4, 64), (6, 17)]):
        prompt = torch.randint(0, V, (b, t), pin_memory=pin).to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            next_ids = lm_head(decoder(prompt)[:, -1]).float().argmax(-1)
        print(f"request {n}: batch {b} len {t} first next ids {next_ids[:2].tolist()}")
