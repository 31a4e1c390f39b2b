"""flex_attention called without torch.compile beside compiled code: the projections are
compiled, but the attention itself runs flex_attention's eager path, a reference
implementation that materialises the whole score matrix, far slower than the fused kernel
torch.compile generates. After pytorch/pytorch#136261 ("Flex Attention Extremely Slow": "you
are using flex_attention in eager mode. Please use compilation mode instead")."""
import torch
from torch.nn.attention.flex_attention import flex_attention

torch.manual_seed(0)


def causal(score, b, h, q_idx, kv_idx):
    return torch.where(q_idx >= kv_idx, score, -float("inf"))


proj = torch.compile(torch.nn.Linear(16, 48))


def attend(x):
    q, k, v = proj(x).view(1, 8, 3, 2, 8).permute(2, 0, 3, 1, 4)
    return flex_attention(q, k, v, score_mod=causal)  # <- diagnosis


x = torch.randn(1, 8, 16)
with torch.no_grad():  # inference
    out = attend(x)
print(out.shape, round(out.sum().item(), 3))
