"""Character-level MLP language model (Bengio et al. 2003, makemore-style) trained on CPU.

The model is compiled for training. Its dropout layers are lowered by Inductor
to its own in-kernel random-number generator, which on the CPU draws one
Philox number per element in scalar C++ (`normalized_rand_cpu`); eager's
bernoulli kernel is much faster, so the compiled training step is slower than
eager. `torch._inductor.config.fallback_random = True` makes Inductor call
the eager RNG instead. Set PROBE_TIME=1 to print eager vs compiled step times
to stderr.
"""
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

TEXT = ("the quick brown fox jumps over the lazy dog while a small cat sleeps in the warm sun "
        "and the old man reads his paper slowly by the window as rain begins to fall ") * 20
CHARS = sorted(set(TEXT))
STOI = {c: i for i, c in enumerate(CHARS)}
CTX, EMB, HID = 8, 24, 256


class MLPLM(nn.Module):
    def __init__(self, vocab, p_drop=0.2):
        super().__init__()
        self.emb = nn.Embedding(vocab, EMB)
        self.fc1 = nn.Linear(CTX * EMB, HID)
        self.norm1 = nn.LayerNorm(HID)
        self.fc2 = nn.Linear(HID, HID)
        self.norm2 = nn.LayerNorm(HID)
        self.head = nn.Linear(HID, vocab)
        self.drop = nn.Dropout(p_drop)

    def forward(self, idx):
        x = self.drop(self.emb(idx).flatten(1))
        x = self.drop(torch.tanh(self.norm1(self.fc1(x))))
        x = x + self.drop(torch.tanh(self.norm2(self.fc2(x))))
        return self.head(x)


def batches(data, gen, bs=512):
    while True:
        ix = torch.randint(0, len(data) - CTX - 1, (bs,), generator=gen)
        x = torch.stack([data[i:i + CTX] for i in ix.tolist()])
        yield x, data[ix + CTX]


def train(model, steps=40, seed=0):
    data = torch.tensor([STOI[c] for c in TEXT])
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, foreach=True)
    it = batches(data, gen)
    t_total, losses = 0.0, []
    for step in range(steps):
        x, y = next(it)
        t0 = time.process_time()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step >= 5:
            t_total += time.process_time() - t0
        losses.append(loss.item())
    return losses, t_total / (steps - 5)


def main():
    torch.manual_seed(0)
    eager = MLPLM(len(CHARS))
    torch.manual_seed(0)
    model = torch.compile(MLPLM(len(CHARS)))
    torch.manual_seed(1)
    e_losses, t_eager = train(eager)
    torch.manual_seed(1)
    losses, t_comp = train(model)
    print(f"vocab {len(CHARS)}  steps {len(losses)}")
    print(f"eager    loss {e_losses[0]:.3f} -> {sum(e_losses[-5:]) / 5:.3f}")
    print(f"compiled loss {losses[0]:.3f} -> {sum(losses[-5:]) / 5:.3f}")
    if os.environ.get("PROBE_TIME"):
        print(f"step ms eager {t_eager*1e3:.2f} compiled {t_comp*1e3:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
