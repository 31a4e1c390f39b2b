# Chat-style decoding with a fixed-size KV cache (HF StaticCache style): the
# cache tensors are marked static for CUDA graphs and the decode step is
# compiled with mode="reduce-overhead". Each new chat session gets its own
# cache, which is kept in a session store for follow-up turns.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda"
D, H, L, V = 256, 4, 128, 1000


class DecodeLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.out = nn.Linear(D, V)

    def forward(self, tok, pos, k_cache, v_cache):
        x = self.emb(tok)  # (B, 1, D)
        q, k, v = self.qkv(x).view(x.shape[0], 1, 3, H, D // H).unbind(2)
        k_cache.index_copy_(2, pos, k.transpose(1, 2))
        v_cache.index_copy_(2, pos, v.transpose(1, 2))
        mask = (torch.arange(L, device=tok.device) <= pos).view(1, L)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k_cache, v_cache, attn_mask=mask)
        x = x + self.proj(a.transpose(1, 2).reshape(x.shape[0], 1, D))
        return self.out(x).argmax(-1)


model = DecodeLayer().to(device).eval()
step = torch.compile(model, mode="reduce-overhead")
sessions = {}


def new_session(sid, batch=2):
    k = torch.zeros(batch, H, L, D // H, device=device)
    v = torch.zeros(batch, H, L, D // H, device=device)
    torch._dynamo.mark_static_address(k)
    torch._dynamo.mark_static_address(v)
    sessions[sid] = (k, v)
    return k, v


with torch.no_grad():
    for sid in range(6):
        k_cache, v_cache = new_session(sid)
        tok = torch.randint(0, V, (2, 1), device=device)
        out = []
        for t in range(8):
            pos = torch.tensor([t], device=device)
            tok = step(tok, pos, k_cache, v_cache).clone()
            out.append(tok)
        mem = torch.cuda.memory_reserved() / 2**20
        print(f"session {sid}: tokens {torch.cat(out, 1)[0].tolist()[:6]}  reserved {mem:.0f} MiB")
