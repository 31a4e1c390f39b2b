# Review classifier: batches are padded to MAX_LEN, and the encoder trims the padding to the
# longest review in the batch (n = lengths.max().item()) so attention costs n*n, not MAX_LEN^2.
# capture_scalar_outputs keeps the .item() in the graph; torch._check tells the compiler n's bound.
import torch
import torch.nn as nn

torch._dynamo.config.capture_scalar_outputs = True
MAX_LEN = 24


class ReviewEncoder(nn.Module):
    def __init__(self, vocab=50, d=16, n_classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.out = nn.Linear(d, n_classes)

    def forward(self, ids, lengths):
        n = lengths.max().item()
        torch._check(n <= MAX_LEN)
        torch._check(n >= 2)
        x = self.emb(ids[:, :n])
        pad = torch.arange(n)[None, :] >= lengths[:, None]
        h, _ = self.attn(x, x, x, key_padding_mask=pad)
        h = h.masked_fill(pad[..., None], 0.0).sum(1) / lengths[:, None]
        return self.out(h)


def main():
    torch.manual_seed(0)
    enc = ReviewEncoder().eval()
    cenc = torch.compile(enc)
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for b in range(3):
            lengths = torch.randint(4, MAX_LEN + 1, (5,), generator=gen)
            ids = torch.randint(1, 50, (5, MAX_LEN), generator=gen)
            logits = cenc(ids, lengths)
            print(f"batch {b} max_len {int(lengths.max())} logits sum {logits.sum().item():.4f}")


if __name__ == "__main__":
    main()
