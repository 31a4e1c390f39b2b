import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
device = "cuda"


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
    t = torch.arange(end).float()
    return torch.polar(torch.ones(end, dim // 2), torch.outer(t, freqs))


def apply_rotary_emb(x, freqs_cis):
    return torch.view_as_real(torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2)) * freqs_cis).flatten(3).type_as(x)


class Attention(nn.Module):
    def __init__(self, dim=512, n_heads=8, seq_len=512):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, dim // n_heads
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        fc = precompute_freqs_cis(self.head_dim, seq_len).view(1, seq_len, 1, self.head_dim // 2)
        self.register_buffer("freqs_cis", fc, persistent=False)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.wqkv(x).view(b, s, 3, self.n_heads, self.head_dim).unbind(2)
        q, k = apply_rotary_emb(q, self.freqs_cis), apply_rotary_emb(k, self.freqs_cis)
        out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.wo(out.transpose(1, 2).reshape(b, s, -1))


model = nn.Sequential(*[Attention() for _ in range(4)]).to(device)
compiled = torch.compile(model)

with torch.no_grad(), torch.autocast(device, dtype=torch.bfloat16):
    for step in range(5):
        x = torch.randn(8, 512, 512, device=device)
        y = compiled(x)
        print(f"step {step} out {y.float().norm().item():.2f}")
