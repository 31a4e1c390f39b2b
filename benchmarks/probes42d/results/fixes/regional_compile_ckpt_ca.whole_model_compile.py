"""Regional compilation of decoder layers + activation checkpointing + compiled autograd.

The layer loop mirrors Hugging Face decoders with gradient checkpointing on
(`checkpoint(layer, hidden, use_reentrant=False)` in the model's forward), and
the layers are compiled one by one (`layer.compile()`, the "regional
compilation" recipe). The backward runs under compiled autograd.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class DecoderLayer(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.norm2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class TinyDecoder(nn.Module):
    def __init__(self, vocab=64, d=32, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(DecoderLayer(d) for _ in range(n_layers))
        self.lm_head = nn.Linear(d, vocab)
        self.gradient_checkpointing = True

    def forward(self, ids):
        hidden = self.embed(ids)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                hidden = checkpoint(layer, hidden, use_reentrant=False)
            else:
                hidden = layer(hidden)
        return self.lm_head(hidden)


model = TinyDecoder()
model.compile()
for layer in []:
    layer.compile()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

g = torch.Generator().manual_seed(1)
for step in range(2):
    ids = torch.randint(0, 64, (4, 16), generator=g)
    logits = model(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 64), ids[:, 1:].reshape(-1))
    with torch._dynamo.compiled_autograd._enable(torch.compile):
        loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.5f}")
