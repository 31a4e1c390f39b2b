"""Token sampler for a small CPU text generator, compiled with a safety net.

Setup notes (written for macOS) export CXX=clang++; on this Linux box clang++
is not installed, so Inductor cannot build its C++ kernels. The program
catches the compile error and keeps going in eager mode, as vLLM's CPU
sampler does (vllm-project/vllm PR #47756: "Fallback to eager sampling when
Inductor C++ compile fails").
"""
import os

os.environ.setdefault("CXX", "clang++")  # from the setup notes

import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab=50, dim=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return self.out(h[:, -1])


def sample(logits, temperature: float, top_k: int, noise):
    logits = logits / temperature
    kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]
    logits = logits.masked_fill(logits < kth, float("-inf"))
    gumbel = -torch.log(-torch.log(noise.clamp(1e-9, 1 - 1e-9)))
    return torch.argmax(logits + gumbel, dim=-1)


compiled_sample = torch.compile(sample)
using_eager = False


def safe_sample(logits, temperature, top_k, noise):
    global compiled_sample, using_eager
    if not using_eager:
        try:
            return compiled_sample(logits, temperature, top_k, noise)
        except Exception as e:
            print(f"compiled sampler failed ({type(e).__name__}); falling back to eager")
            using_eager = True
    return sample(logits, temperature, top_k, noise)


def main():
    torch.manual_seed(0)
    model = TinyLM().eval()
    g = torch.Generator().manual_seed(7)
    ids = torch.randint(0, 50, (2, 4), generator=g)
    with torch.no_grad():
        for step in range(6):
            logits = model(ids)
            noise = torch.rand(logits.shape, generator=g)
            nxt = safe_sample(logits, 0.8, 10, noise)
            ids = torch.cat([ids, nxt[:, None]], dim=1)
    for row in ids.tolist():
        print("generated:", row)
    print("eager fallback used:", using_eager)


if __name__ == "__main__":
    main()
