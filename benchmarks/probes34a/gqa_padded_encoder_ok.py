import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class GQAEncoderLayer(nn.Module):
    def __init__(self, dim=48, n_heads=6, n_kv_heads=2):
        super().__init__()
        self.h, self.kvh, self.hd = n_heads, n_kv_heads, dim // n_heads
        self.q = nn.Linear(dim, dim, bias=False)
        self.kv = nn.Linear(dim, 2 * n_kv_heads * self.hd, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.norm = RMSNorm(dim)

    def forward(self, x, lengths):
        B, T, C = x.shape
        h = self.norm(x)
        q = self.q(h).view(B, T, self.h, self.hd).transpose(1, 2)
        k, v = self.kv(h).view(B, T, 2, self.kvh, self.hd).permute(2, 0, 3, 1, 4)
        rep = self.h // self.kvh
        k = k[:, :, None].expand(B, self.kvh, rep, T, self.hd).reshape(B, self.h, T, self.hd)
        v = v[:, :, None].expand(B, self.kvh, rep, T, self.hd).reshape(B, self.h, T, self.hd)
        key_ok = torch.arange(T, device=x.device)[None, :] < lengths[:, None]
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=key_ok[:, None, None, :])
        return x + self.o(a.transpose(1, 2).reshape(B, T, C))


layer = GQAEncoderLayer()
step_fn = torch.compile(layer)
head = nn.Linear(48, 1)
opt = torch.optim.AdamW(list(layer.parameters()) + list(head.parameters()), lr=1e-3)
for step, T in enumerate([20, 24, 18, 30, 26]):
    x = torch.randn(4, T, 48)
    lengths = torch.randint(T // 2, T + 1, (4,))
    valid = (torch.arange(T)[None, :] < lengths[:, None]).float()
    y = step_fn(x, lengths)
    pooled = (y * valid[..., None]).sum(1) / valid.sum(1, keepdim=True)
    loss = F.mse_loss(head(pooled).squeeze(-1), x[:, 0, 0])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} (T={T}): loss {loss.item():.4f}")
