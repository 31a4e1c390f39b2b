import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right

torch.manual_seed(0)


class MemoryAttentionLayer(nn.Module):
    """Segment-recurrent encoder layer: each segment also attends to the previous segment."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def split(self, t):
        B, T, C = t.shape
        return t.view(B, T, self.heads, C // self.heads).transpose(1, 2)

    def forward(self, seg, memory):
        ctx = torch.cat([memory, seg], dim=1)
        q = self.split(self.q(seg))
        k, v = (self.split(t) for t in self.kv(ctx).chunk(2, dim=-1))
        # queries are the last seg.size(1) positions of the context: align the causal mask bottom-right
        mask = causal_lower_right(seg.size(1), ctx.size(1))
        h = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        B, H, T, D = h.shape
        return self.norm(seg + self.out(h.transpose(1, 2).reshape(B, T, H * D)))


layer = MemoryAttentionLayer(32, 4)
compiled = torch.compile(layer)
readout = nn.Linear(32, 1)
opt = torch.optim.Adam(list(layer.parameters()) + list(readout.parameters()), lr=1e-3)
signal = torch.randn(4, 64, 32)
target = signal.cumsum(dim=1)[..., :1] / 8
for epoch in range(3):
    memory, total = torch.zeros(4, 16, 32), 0.0
    for start in range(0, 64, 16):
        out = compiled(signal[:, start:start + 16], memory)
        loss = F.mse_loss(readout(out), target[:, start:start + 16])
        opt.zero_grad()
        loss.backward()
        opt.step()
        memory, total = out.detach(), total + loss.item()
    print(f"epoch {epoch}: mean segment loss {total / 4:.4f}")
