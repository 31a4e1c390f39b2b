"""A correct program: a FlexAttention encoder layer over length-bucketed batches (384..896 tokens
in steps of 128, padded inside each batch). For each batch a BlockMask is built for its length
with create_block_mask from a causal + key-padding mask_mod (a closure over the batch's lengths
tensor), and the compiled layer takes the BlockMask as an argument. The second length recompiles
the layer once with a dynamic sequence length (automatic dynamic: information); every later
length reuses that graph. Expected: 2 compiles in all, no graph break, 8 step lines, exit 0; no
problem diagnosis."""
import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

torch.manual_seed(0)
device = "cuda"
H, D = 8, 64


class FlexLayer(nn.Module):
    def __init__(self, dim=H * D):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, block_mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, H, D).permute(2, 0, 3, 1, 4)
        y = flex_attention(q, k, v, block_mask=block_mask)
        return x + self.out(y.transpose(1, 2).reshape(B, T, C))


layer = FlexLayer().to(device)
compiled = torch.compile(layer)
opt = torch.optim.AdamW(layer.parameters(), lr=1e-4)
for step, T in enumerate((384, 512, 640, 768, 896, 512, 640, 384)):
    lengths = torch.randint(T // 2, T + 1, (4,), device=device)

    def causal_padding(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (kv_idx < lengths[b])

    block_mask = create_block_mask(causal_padding, B=4, H=None, Q_LEN=T, KV_LEN=T, device=device)
    x = torch.randn(4, T, H * D, device=device)
    loss = compiled(x, block_mask).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} T {T} loss {loss.item():.4f}")
