# A bag-of-embeddings encoder that trims right padding to the longest sequence in the batch
# before a gated pooling (n = lengths.max().item()). The author tells the compiler the bound with
# torch._check and, to debug bad batches, gives it a message naming the length.
import torch
import torch.nn as nn

torch._dynamo.config.capture_scalar_outputs = True
MAX_LEN = 24


class TrimEncoder(nn.Module):
    def __init__(self, vocab=50, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.gate = nn.Linear(d, 1)
        self.out = nn.Linear(d, 2)

    def forward(self, ids, lengths):
        n = lengths.max().item()
        torch._check(n <= MAX_LEN, lambda: "batch longer than MAX_LEN")
        x = self.emb(ids[:, :n])
        pad = torch.arange(n)[None, :] >= lengths[:, None]
        w = torch.sigmoid(self.gate(x)).masked_fill(pad[..., None], 0.0)
        h = (w * x).sum(1) / w.sum(1).clamp(min=1e-6)
        return self.out(h)


def main():
    torch.manual_seed(0)
    enc = TrimEncoder().eval()
    cenc = torch.compile(enc, fullgraph=True)
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for b in range(3):
            lengths = torch.randint(4, MAX_LEN + 1, (5,), generator=gen)
            ids = torch.randint(1, 50, (5, MAX_LEN), generator=gen)
            logits = cenc(ids, lengths)
            print(f"batch {b} max_len {int(lengths.max())} logits sum {logits.sum().item():.4f}")


if __name__ == "__main__":
    main()
