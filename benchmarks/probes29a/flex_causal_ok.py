import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

torch.manual_seed(0)
B, H, S, D = 2, 4, 128, 32


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def alibi_bias(score, b, h, q_idx, kv_idx):
    return score - (h + 1) * 0.05 * (q_idx - kv_idx)


class CausalBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(H * D, 3 * H * D)
        self.out = nn.Linear(H * D, H * D)

    def forward(self, x, block_mask):
        q, k, v = self.qkv(x).view(B, S, 3, H, D).permute(2, 0, 3, 1, 4)
        o = flex_attention(q, k, v, score_mod=alibi_bias, block_mask=block_mask)
        return self.out(o.transpose(1, 2).reshape(B, S, H * D))


block_mask = create_block_mask(causal, B=None, H=None, Q_LEN=S, KV_LEN=S, device="cpu")
model = CausalBlock().eval()
cmodel = torch.compile(model)
with torch.no_grad():
    for i in range(3):
        x = torch.randn(B, S, H * D)
        y = cmodel(x, block_mask)
        print(f"batch {i} out mean {y.mean().item():.5f} std {y.std().item():.5f}")
