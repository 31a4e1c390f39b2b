"""Greedy decoder with a fixed prefix cache.

`cache` is the full key cache (prefix row 0 + generated rows); the step receives the
cache and `cache[1:]` (the generated part), rescales the cache in place and reads the
first generated row as the query anchor.  Source: pytorch/pytorch#198095 (output that
is a view of an aliased input with a storage offset is regenerated from the wrong
tensor: `ta[0]` silently returns `t0[0]`).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

STEPS, DIM, VOCAB = 6, 16, 12


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.out = nn.Linear(DIM, VOCAB)

    def forward(self, anchor, tok):
        return self.out(torch.tanh(anchor + self.emb(tok)))


def rescale_and_anchor(cache, generated, scale):
    cache.mul_(scale)              # keep the cache norm bounded
    return generated[0]            # first generated key: the anchor


def main():
    head = Head().eval()
    anchor_fn = torch.compile(rescale_and_anchor)
    cache = torch.randn(STEPS + 1, DIM)
    tok = torch.tensor(3)
    toks = []
    with torch.no_grad():
        for s in range(STEPS):
            anchor = anchor_fn(cache, cache[1:], 0.95)
            logits = head(anchor, tok)
            tok = logits.argmax()
            toks.append(int(tok))
            print(f"step {s}: token {toks[-1]}  anchor norm {anchor.norm().item():.4f}")
    print("decoded:", toks)


if __name__ == "__main__":
    main()
