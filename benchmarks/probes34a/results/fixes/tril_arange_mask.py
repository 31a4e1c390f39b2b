import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM = 64, 32


def causal_mask(T, device):
    pos = torch.arange(T, device=device)
    mask = pos[:, None] >= pos[None, :]
    return mask


class TinyCausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(128, DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.out = nn.Linear(DIM, DIM)
        self.norm = nn.LayerNorm(DIM)
        self.lm_head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        B, T = ids.shape
        x = self.embed(ids) + self.pos(torch.arange(T, device=ids.device))
        q, k, v = self.qkv(self.norm(x)).view(B, T, 3, 4, DIM // 4).permute(2, 0, 3, 1, 4)
        h = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(T, ids.device))
        x = x + self.out(h.transpose(1, 2).reshape(B, T, DIM))
        return self.lm_head(x)


model = TinyCausalLM()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

# length-bucketed batches: every bucket has its own sequence length
for step, seq_len in enumerate([24, 32, 28, 40, 20]):
    ids = torch.randint(0, VOCAB, (8, seq_len + 1))
    logits = compiled(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} (len {seq_len}): loss {loss.item():.4f}")
