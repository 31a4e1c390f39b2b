"""Benchmark workload (a): a stack of transformer-ish blocks compiled with torch.compile,
run for a few training steps (forward + backward) and a few eval steps on a new batch size
(one recompile). Usage: python workload_model.py [--layers N] [--steps N] [--backend B]"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (d // self.heads) ** -0.5
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Model(nn.Module):
    def __init__(self, layers: int, d: int = 64, heads: int = 4, vocab: int = 256) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.emb(idx)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--backend", default="inductor",
                    help="torch.compile's backend (eager: a smoke run, no Inductor compile)")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Model(args.layers)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    cmodel = torch.compile(model, backend=args.backend)
    for _ in range(args.steps):
        idx = torch.randint(0, 256, (4, 32))
        logits = cmodel(idx)
        loss = F.cross_entropy(logits.flatten(0, 1), idx.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        for _ in range(args.steps):
            cmodel(torch.randint(0, 256, (2, 16)))
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
