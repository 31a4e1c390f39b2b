"""Streaming decoder with a preallocated KV cache owned by the model (buffers written in
place with index_copy_ at a tensor position), a module-level token counter tensor updated
inside the compiled step, and token sampling from a torch.Generator in eager code.
Written the way that compiles once: position is a 0-d tensor, not a Python int."""
import torch
import torch.nn as nn

torch.manual_seed(0)

TOKENS_SEEN = torch.zeros((), dtype=torch.long)   # telemetry counter on the module
VOCAB, D, MAXLEN = 50, 32, 40


class TinyDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(MAXLEN, D)
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, VOCAB)
        self.register_buffer("k_cache", torch.zeros(MAXLEN, D))
        self.register_buffer("v_cache", torch.zeros(MAXLEN, D))

    def reset(self):
        self.k_cache.zero_()
        self.v_cache.zero_()

    def step(self, tok, pos):
        # tok: (1,) long, pos: (1,) long tensor
        h = self.emb(tok) + self.pos(pos)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        self.k_cache.index_copy_(0, pos, k)
        self.v_cache.index_copy_(0, pos, v)
        valid = torch.arange(MAXLEN) <= pos
        scores = (q @ self.k_cache.T) / D ** 0.5
        scores = scores.masked_fill(~valid, float("-inf"))
        ctx = torch.softmax(scores, dim=-1) @ self.v_cache
        TOKENS_SEEN.add_(1)
        return self.out(ctx + h)


model = TinyDecoder().eval()
step = torch.compile(model.step)


@torch.no_grad()
def generate(prompt, n_new, gen):
    model.reset()
    toks = list(prompt)
    logits = None
    for i, t in enumerate(toks):
        logits = step(torch.tensor([t]), torch.tensor([i]))
    for i in range(len(toks), len(toks) + n_new):
        probs = torch.softmax(logits[0] / 0.8, dim=-1)
        nxt = int(torch.multinomial(probs, 1, generator=gen))
        toks.append(nxt)
        logits = step(torch.tensor([nxt]), torch.tensor([i]))
    return toks, logits


def main():
    gen = torch.Generator().manual_seed(7)
    for prompt in ([1, 2, 3], [4, 5], [9, 9, 9, 9]):
        toks, logits = generate(prompt, 12, gen)
        print("prompt", prompt, "->", toks[len(prompt):], f"last logit sum {logits.sum().item():.5f}")
    print("tokens seen", TOKENS_SEEN.item())
    print(f"k_cache checksum {model.k_cache.abs().sum().item():.5f}")


if __name__ == "__main__":
    main()
