"""A small causal transformer block trained on CUDA with flex_attention: a learned relative
position bias (an nn.Parameter of shape (heads, 2*S-1), as in T5/ALiBi-style models) is read
in the score_mod, and a causal BlockMask built once with create_block_mask skips the masked
tiles. The training step is compiled. flex_attention supports gradients for tensors a
score_mod captures, so the bias trains inside the fused kernel: one compile, no graph break,
no recompile (fixed shapes, the block mask built outside the loop)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

device = "cuda"
torch.manual_seed(0)
B, H, S, D = 4, 4, 256, 64


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv, self.proj = nn.Linear(H * D, 3 * H * D), nn.Linear(H * D, H * D)
        self.rel_bias = nn.Parameter(torch.zeros(H, 2 * S - 1))

    def forward(self, x, block_mask):
        q, k, v = self.qkv(x).view(B, S, 3, H, D).permute(2, 0, 3, 1, 4)
        bias = self.rel_bias

        def rel_pos(score, b, h, q_idx, kv_idx):
            return score + bias[h, q_idx - kv_idx + S - 1]

        y = flex_attention(q, k, v, score_mod=rel_pos, block_mask=block_mask)
        return x + self.proj(y.transpose(1, 2).reshape(B, S, H * D))


model = Block().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
causal = create_block_mask(lambda b, h, q, kv: q >= kv, None, None, S, S, device=device)
step_fn = torch.compile(lambda x, t: F.mse_loss(model(x, causal), t))
x = torch.randn(B, S, H * D, device=device)
target = torch.randn(B, S, H * D, device=device)
for step in range(10):
    loss = step_fn(x, target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 3 == 2:
        print(f"step {step + 1}: loss {loss.item():.3f}, bias norm {model.rel_bias.norm().item():.3f}")
