"""Batched prompts of different lengths, left-padded; the compiled forward derives position ids
from the padding before running a tiny GPT over the batch."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, HEADS, PAD = 70, 48, 4, 0


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(64, DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        B, T = ids.shape
        n_pad = (ids == PAD).sum(dim=1)
        positions = torch.zeros_like(ids)
        for b in range(B):
            positions[b, n_pad[b]:] = torch.arange(T - n_pad[b])
        keep = (ids != PAD)[:, None, None, :] & torch.ones(T, T, dtype=torch.bool).tril()
        keep = keep | torch.eye(T, dtype=torch.bool)
        h = self.emb(ids) + self.pos(positions)
        q, k, v = self.qkv(h).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        att = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        return self.head(h + att.transpose(1, 2).reshape(B, T, DIM))


def left_pad(seqs):
    width = max(len(s) for s in seqs)
    return torch.tensor([[PAD] * (width - len(s)) + s for s in seqs])


model = TinyGPT().eval()
forward = torch.compile(model)
batch = [[5, 9, 12], [7, 3, 3, 8, 1, 4], [11, 2, 6, 6]]
with torch.no_grad():
    for step in range(6):
        ids = left_pad(batch)
        next_ids = forward(ids)[:, -1].argmax(-1).tolist()
        batch = [seq + [tok] for seq, tok in zip(batch, next_ids)]
for seq in batch:
    print(seq)
