# compdiag's printed fix applied: run under set_stance('force_eager') to check eager errors
# Tiny pre-norm transformer block whose RMSNorm picks a fused kernel when an optional
# extension is installed. The probe is an lru_cached try/import/except ImportError,
# like sglang's is_musa() that graph-breaks Dynamo on the traced path
# (sgl-project/sglang#39054). On a machine without the extension, every call to the
# probe inside the compiled forward is an "Import failure" graph break.
from functools import lru_cache

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@lru_cache(maxsize=1)
def fused_rmsnorm_available() -> bool:
    try:
        import fused_rmsnorm_ext  # noqa: F401  (optional CUDA extension)
    except ImportError:
        return False
    return True


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        if fused_rmsnorm_available() and x.is_cuda:
            import fused_rmsnorm_ext
            return fused_rmsnorm_ext.rmsnorm(x, self.weight, self.eps)
        var = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(var + self.eps) * self.weight


class Block(nn.Module):
    def __init__(self, d=64, n_heads=4):
        super().__init__()
        self.n_heads = n_heads
        self.norm1 = RMSNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = RMSNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(B, T, 3, self.n_heads, D // self.n_heads).unbind(2)
        att = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.proj(att.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.norm2(x))


model = nn.Sequential(Block(), Block())
cmodel = torch.compile(model)
torch.compiler.set_stance("force_eager")  # compdiag fix: check the code runs in eager
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(8, 16, 64)
target = torch.randn(8, 16, 64)
for step in range(6):
    loss = F.mse_loss(cmodel(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 0:
        print(f"step {step} loss {loss.item():.4f}")
