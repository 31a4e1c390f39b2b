import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def alibi_slopes(n_heads):
    start = 2 ** (-8 / n_heads)
    return torch.tensor([start ** (i + 1) for i in range(n_heads)])


class AlibiAttention(nn.Module):
    def __init__(self, dim=32, heads=4, max_len=256):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.o = nn.Linear(dim, dim)
        self.register_buffer("slopes", alibi_slopes(heads).view(1, heads, 1, 1), persistent=False)
        causal = torch.ones(max_len, max_len, dtype=torch.bool).tril()
        self.register_buffer("causal", causal, persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        pos = torch.arange(T, device=x.device)
        bias = self.slopes * (pos[None, :] - pos[:, None]).to(x.dtype)
        scores = q @ k.transpose(-2, -1) / math.sqrt(C // self.heads) + bias
        scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))
        probs = scores.softmax(-1)
        return x + self.o((probs @ v).transpose(1, 2).reshape(B, T, C)), probs


embed, lm_head = nn.Embedding(40, 32), nn.Linear(32, 40)
attn = AlibiAttention()
compiled_attn = torch.compile(attn)
opt = torch.optim.Adam([*embed.parameters(), *attn.parameters(), *lm_head.parameters()], lr=3e-3)
for step, T in enumerate([16, 24, 20, 32, 28]):
    ids = torch.randint(0, 40, (4, T + 1))
    h, probs = compiled_attn(embed(ids[:, :-1]))
    loss = F.cross_entropy(lm_head(h).reshape(-1, 40), ids[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    entropy = -(probs * probs.clamp_min(1e-9).log()).sum(-1).mean()
    print(f"step {step} (T={T}): loss {loss.item():.4f}, attention entropy {entropy.item():.3f}")
