import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def relative_position_bucket(rel_pos, num_buckets=32, max_distance=128):
    # bidirectional T5 bucketing
    num_buckets //= 2
    buckets = (rel_pos > 0).to(torch.long) * num_buckets
    n = torch.abs(rel_pos)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    val_if_large = max_exact + (
        torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    val_if_large = torch.min(val_if_large, torch.full_like(val_if_large, num_buckets - 1))
    return buckets + torch.where(is_small, n, val_if_large)


class RelBiasSelfAttention(nn.Module):
    def __init__(self, dim=32, heads=4, num_buckets=32):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.rel_bias = nn.Embedding(num_buckets, heads)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        pos = torch.arange(T, device=x.device)
        buckets = relative_position_bucket(pos[None, :] - pos[:, None])
        bias = self.rel_bias(buckets).permute(2, 0, 1).unsqueeze(0)
        scores = q @ k.transpose(-2, -1) + bias  # T5 does not scale the scores
        return x + self.o((scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C))


model = RelBiasSelfAttention()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step, T in enumerate([40, 64, 56, 48]):
    x = torch.randn(2, T, 32)
    loss = (compiled(x) - x.flip(1)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} (T={T}): loss {loss.item():.4f}")
