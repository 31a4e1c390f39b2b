# Attention decoder of a small ASR model (transformer decoder over encoder frames), trained
# with teacher forcing on padded token batches. The causal mask comes from
# a bool upper-triangular mask (True = not allowed), the same type as the padding mask
# from the token lengths (bool), as depthcharge PR #30 builds it.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, PAD, D = 32, 0, 64


class DecoderLayer(nn.Module):
    def __init__(self, d=D, heads=4):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n1, self.n2, self.n3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x, memory, causal, tgt_pad, mem_pad):
        h = self.n1(x)
        x = x + self.self_attn(h, h, h, attn_mask=causal, key_padding_mask=tgt_pad, need_weights=False)[0]
        h = self.n2(x)
        x = x + self.cross_attn(h, memory, memory, key_padding_mask=mem_pad, need_weights=False)[0]
        return x + self.ff(self.n3(x))


class AttentionDecoder(nn.Module):
    def __init__(self, layers=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = nn.Parameter(torch.randn(1, 64, D) * 0.02)
        self.layers = nn.ModuleList(DecoderLayer() for _ in range(layers))
        self.out = nn.Linear(D, VOCAB)

    def forward(self, tokens, memory, mem_pad):
        L = tokens.size(1)
        causal = torch.ones(L, L, dtype=torch.bool).triu(1)
        tgt_pad = tokens == PAD
        x = self.embed(tokens) + self.pos[:, :L]
        for layer in self.layers:
            x = layer(x, memory, causal, tgt_pad, mem_pad)
        return self.out(x)


def batch(B=8, T=50, L=12):
    memory = torch.randn(B, T, D)
    mem_len = torch.randint(T // 2, T + 1, (B,))
    mem_pad = torch.arange(T)[None] >= mem_len[:, None]
    tok_len = torch.randint(4, L + 1, (B,))
    tokens = torch.randint(1, VOCAB, (B, L + 1))
    tokens[torch.arange(L + 1)[None] > tok_len[:, None]] = PAD
    return tokens[:, :-1], tokens[:, 1:], memory, mem_pad


model = AttentionDecoder()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
step_fn = torch.compile(model)
for step in range(6):
    inp, tgt, memory, mem_pad = batch()
    logits = step_fn(inp, memory, mem_pad)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1), ignore_index=PAD)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")
