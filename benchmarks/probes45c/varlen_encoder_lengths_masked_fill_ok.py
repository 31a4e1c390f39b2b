"""Sentence encoder served with torch.compile(fullgraph=True).

The service warms the compiled encoder up with a dummy full-length batch
(no lengths), then serves real padded batches with their lengths.  The
padding path is applied unconditionally (no data-dependent fast path), so
the second call compiles cleanly.  Correct cousin of
varlen_encoder_lengths_second_call_fullgraph.py.  Pattern: the
"skip the mask when nothing is padded" fast path (`if mask.all()`), as in
huggingface/diffusers PR #12987, meeting Dynamo's "Data-dependent branching"
Unsupported error under fullgraph=True.
"""
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, vocab=100, dim=32, heads=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.layer = nn.TransformerEncoderLayer(dim, heads, 64, dropout=0.0, batch_first=True)
        self.proj = nn.Linear(dim, 16)

    def forward(self, ids, lengths=None):
        h = self.layer(self.emb(ids))
        if lengths is not None:
            mask = torch.arange(ids.shape[1])[None, :] < lengths[:, None]
            h = h.masked_fill(~mask[..., None], 0.0)  # no-op when nothing is padded
            pooled = h.sum(1) / lengths[:, None].to(h.dtype)
        else:
            pooled = h.mean(1)
        return self.proj(pooled)


def main():
    torch.manual_seed(0)
    model = Encoder().eval()
    encode = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        warm = encode(torch.zeros(4, 12, dtype=torch.long))
        print("warm-up ok:", tuple(warm.shape))
        g = torch.Generator().manual_seed(3)
        for step in range(3):
            ids = torch.randint(1, 100, (4, 12), generator=g)
            lengths = torch.randint(4, 13, (4,), generator=g)
            emb = encode(ids, lengths)
            print(f"batch {step}: norm {emb.norm().item():.4f}")


if __name__ == "__main__":
    main()
