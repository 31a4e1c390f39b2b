"""A text classifier served on CUDA over padded batches, its SDPA encoder compiled. To avoid
rebuilding the additive attention mask, the model keeps the last padding mask and compares the
new one with torch.equal. torch.equal returns a Python bool computed from device data (a host
sync on CUDA), which Dynamo cannot trace: "Data dependent operator" aten.equal.default breaks
the graph at that line on every call, and the model runs as several graphs with a sync between
them. The fix: build the mask from pad_mask every call (one torch.where, fused by Inductor),
or compare the masks outside the compiled forward."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
V, D, H, T = 1000, 128, 4, 32


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.ln = nn.Embedding(V, D), nn.LayerNorm(D)
        self.qkv, self.proj, self.head = nn.Linear(D, 3 * D), nn.Linear(D, D), nn.Linear(D, 3)
        self.last_mask, self.bias = None, None

    def forward(self, ids, pad_mask):
        if self.last_mask is None or not torch.equal(pad_mask, self.last_mask):
            self.last_mask = pad_mask
            self.bias = torch.where(pad_mask, float("-inf"), 0.0)[:, None, None, :]
        x = self.emb(ids)
        q, k, v = self.qkv(self.ln(x)).view(-1, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias)
        x = x + self.proj(y.transpose(1, 2).reshape(-1, T, D))
        return self.head(x[:, 0])


model = Encoder().to(device).eval()
cmodel = torch.compile(model)
ids = torch.randint(0, V, (4, 16, T), device=device)
lens = torch.randint(T // 2, T + 1, (4, 16), device=device)
masks = torch.arange(T, device=device) >= lens[..., None]
with torch.no_grad():
    for step in range(12):
        logits = cmodel(ids[step // 3 % 4], masks[step // 3 % 4])
        if step % 3 == 2:
            print(f"batch {step // 3}: class counts {logits.argmax(-1).bincount(minlength=3).tolist()}")
