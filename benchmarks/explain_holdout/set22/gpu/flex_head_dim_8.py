"""pytorch/pytorch#147701, fixed as PR #147765 ("[FlexAttention] Improve error msg for embedding
< 16", https://github.com/pytorch/pytorch/pull/147765): FlexAttention's Triton kernels use tl.dot,
which needs an embedding (head) dimension of at least 16, so Inductor's CUDA lowering of
flex_attention refuses smaller heads with "NYI: embedding dimension of the query, key, and value
must be at least 16 but got E=8 and Ev=8". Eager flex_attention (no compile) runs the same call
with E=8; on the CPU the lowering takes its C++ path, which has no such limit, so only the CUDA
compile fails. A small point-sequence transformer with d_model 64 split into 8 heads of 8, a
causal block mask, compiled whole.

Why it should still reproduce on torch 2.11: the check moved into the Inductor lowering with
#147765 (Feb 2025, torch 2.7) and is unchanged in the torch 2.13 wheel
(torch/_inductor/kernel/flex/flex_attention.py, before any backend choice)."""
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

torch.manual_seed(0)
B, L, D, HEADS = 4, 256, 64, 8


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


class TinyAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(D, 3 * D)
        self.proj = torch.nn.Linear(D, D)

    def forward(self, x, block_mask):
        q, k, v = self.qkv(x).view(B, L, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        y = flex_attention(q, k, v, block_mask=block_mask)
        return self.proj(y.transpose(1, 2).reshape(B, L, D))


model = TinyAttention().cuda()
mask = create_block_mask(causal, B=None, H=None, Q_LEN=L, KV_LEN=L, device="cuda")
x = torch.randn(B, L, D, device="cuda")
compiled = torch.compile(model)
with torch.no_grad():
    out = compiled(x, mask)
print("out", tuple(out.shape), round(out.float().abs().mean().item(), 4))
