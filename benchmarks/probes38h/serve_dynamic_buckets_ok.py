# Token classifier server: variable batch sizes and lengths, one dynamic compile, masked mean pool.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, vocab=64, d=32, n_cls=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.head = nn.Linear(d, n_cls)

    def forward(self, ids, mask):
        h = self.emb(ids)
        a, _ = self.attn(h, h, h, key_padding_mask=~mask, need_weights=False)
        h = h + a
        h = h + self.ff(h)
        m = mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.head(pooled).log_softmax(-1)


def collate(seqs):
    L = max(len(s) for s in seqs)
    ids = torch.zeros(len(seqs), L, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
    return ids, ids != 0


model = Encoder().eval()
compiled = torch.compile(model, dynamic=True)
gen = torch.Generator().manual_seed(3)
with torch.inference_mode():
    for bsz, maxlen in [(2, 5), (4, 9), (3, 7), (5, 4)]:
        seqs = [torch.randint(1, 64, (int(torch.randint(2, maxlen + 1, (1,), generator=gen)),),
                              generator=gen).tolist() for _ in range(bsz)]
        ids, mask = collate(seqs)
        out = compiled(ids, mask)
        print(bsz, ids.shape[1], out.argmax(-1).tolist(), f"{out.sum().item():.4f}")
