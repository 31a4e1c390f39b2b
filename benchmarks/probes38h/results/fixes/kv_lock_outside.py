# Decode server: one KV cache shared by request threads, guarded by a lock in forward.
import threading
import torch
import torch.nn as nn

torch.manual_seed(0)


class CachedAttn(nn.Module):
    def __init__(self, d=16, max_len=32):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.register_buffer("k_cache", torch.zeros(1, max_len, d))
        self.register_buffer("v_cache", torch.zeros(1, max_len, d))
        self.lock = threading.Lock()

    def forward(self, x, pos):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.k_cache[:, pos] = k[:, 0]
        self.v_cache[:, pos] = v[:, 0]
        keys = self.k_cache[:, : pos + 1]
        vals = self.v_cache[:, : pos + 1]
        att = torch.softmax(q @ keys.transpose(1, 2) / 4.0, dim=-1)
        return self.out(att @ vals)


model = CachedAttn().eval()
step = torch.compile(model)
with torch.inference_mode():
    x = torch.randn(1, 1, 16)
    for pos in range(4):
        with model.lock:  # requests from several threads share the cache
            x = step(x, pos)
        print(f"pos {pos}: {x.sum().item():.4f}")
