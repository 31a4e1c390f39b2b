"""Packed-sequence training with FlexAttention: documents of random lengths are packed into
fixed-length rows; a document mask (causal within each document) is rebuilt for every batch.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

device = "cuda"
torch.manual_seed(0)
B, H, S, D, V = 4, 8, 1024, 64, 1000


class PackedAttentionLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, H * D)
        self.qkv = nn.Linear(H * D, 3 * H * D)
        self.proj = nn.Linear(H * D, H * D)
        self.head = nn.Linear(H * D, V)

    def forward(self, tokens, block_mask):
        x = self.emb(tokens)
        q, k, v = self.qkv(x).view(B, S, 3, H, D).permute(2, 0, 3, 1, 4)
        y = flex_attention(q, k, v, block_mask=block_mask)
        x = x + self.proj(y.transpose(1, 2).reshape(B, S, H * D))
        return self.head(x)


model = PackedAttentionLM().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
cmodel = torch.compile(model)


def pack_documents():
    lengths = torch.randint(32, 256, (64,), device=device)
    doc_ids = torch.repeat_interleave(torch.arange(64, device=device), lengths)[:S]
    return torch.cat([doc_ids, doc_ids.new_full((S - doc_ids.numel(),), 64)])


for step in range(6):
    doc_ids = pack_documents()

    def document_causal(b, h, q_idx, kv_idx):
        return (doc_ids[q_idx] == doc_ids[kv_idx]) & (q_idx >= kv_idx)

    block_mask = create_block_mask(document_causal, None, None, S, S, device=device)
    tokens = torch.randint(0, V, (B, S), device=device)
    with torch.autocast(device, dtype=torch.bfloat16):
        logits = cmodel(tokens, block_mask)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, V).float(), tokens[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} docs {int(doc_ids.max())} loss {loss.item():.4f}")
