"""A 12-layer GPT-2-style LM with `scale_attn_by_inverse_layer_idx` (as in HF's GPT2Config),
compiled regionally: each block with `block.compile(fullgraph=True)`.

Every block shares one forward code object, and the Python int `self.layer_idx` read in
the attention is a specialized constant (nn.Module int attributes are not made dynamic),
so each layer recompiles the shared code. Layer 8 is the 9th compile: past
recompile_limit (8), and with fullgraph=True that is a hard error,
FailOnRecompileLimitHit, on the first forward.
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class GPTConfig:
    vocab_size: int = 256
    block_size: int = 32
    n_layer: int = 12
    n_head: int = 4
    n_embd: int = 64
    scale_attn_by_inverse_layer_idx: bool = True


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg, layer_idx):
        super().__init__()
        self.n_head = cfg.n_head
        self.layer_idx = layer_idx
        self.scale_by_layer = cfg.scale_attn_by_inverse_layer_idx
        self.c_attn = nn.Linear(cfg.n_embd, 3 * cfg.n_embd)
        self.c_proj = nn.Linear(cfg.n_embd, cfg.n_embd)
        mask = torch.tril(torch.ones(cfg.block_size, cfg.block_size, dtype=torch.bool))
        self.register_buffer("bias", mask.view(1, 1, cfg.block_size, cfg.block_size))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        if self.scale_by_layer:
            att = att / float(self.layer_idx + 1)
        att = att.masked_fill(~self.bias[:, :, :T, :T], float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, cfg, layer_idx):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd)
        self.attn = CausalSelfAttention(cfg, layer_idx)
        self.ln_2 = nn.LayerNorm(cfg.n_embd)
        self.mlp = nn.Sequential(nn.Linear(cfg.n_embd, 4 * cfg.n_embd), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * cfg.n_embd, cfg.n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.h = nn.ModuleList([Block(cfg, i) for i in range(cfg.n_layer)])
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)

    def forward(self, idx, targets):
        pos = torch.arange(idx.size(1))
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


cfg = GPTConfig()
torch._dynamo.config.recompile_limit = cfg.n_layer
model = GPT(cfg)
for block in model.h:
    block.compile(fullgraph=True)   # regional compilation: one region per block
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randint(0, cfg.vocab_size, (4096,))

for step in range(4):
    ix = torch.randint(0, len(data) - cfg.block_size - 1, (8,))
    xb = torch.stack([data[i:i + cfg.block_size] for i in ix])
    yb = torch.stack([data[i + 1:i + 1 + cfg.block_size] for i in ix])
    loss = model(xb, yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
