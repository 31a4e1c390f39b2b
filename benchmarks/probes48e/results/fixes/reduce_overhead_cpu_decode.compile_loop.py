"""Character-level name generator (makemore-style GRU), decoding one character per call on
a CPU inference box. The decode step is compiled with mode="reduce-overhead", the mode the
docs recommend for small, launch-bound steps, expecting it to cut the per-token overhead."""
import sys
import time

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
CHARS = ".abcdefghijklmnopqrstuvwxyz"          # '.' ends a name
V, H, MAX_LEN = len(CHARS), 128, 12


class NameGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 32)
        self.cell = nn.GRUCell(32, H)
        self.out = nn.Linear(H, V)

    def forward(self, tok, h):
        h = self.cell(self.emb(tok), h)
        return self.out(h), h


model = NameGRU().eval()


def decode_step(tok, h):
    logits, h = model(tok, h)
    return logits.argmax(-1), h


def decode_all(tok, h):
    toks = []
    for _ in range(MAX_LEN - 1):
        tok, h = decode_step(tok, h)
        toks.append(tok)
    return toks

compiled_all = torch.compile(decode_all)
class _Step:
    def __call__(self, tok, h):
        if not hasattr(self, "buf") or not self.buf:
            self.buf = list(compiled_all(tok, h))
        return self.buf.pop(0), None
compiled_step = _Step()


def generate(step, first_letter):
    tok = torch.tensor([CHARS.index(first_letter)])
    h = torch.zeros(1, H)
    out = first_letter
    for _ in range(MAX_LEN - 1):
        tok, h = step(tok, h)
        out += CHARS[int(tok)]
    return out


letters = "abcdefghijklmnopqrstuvwxyz"
with torch.no_grad():
    generate(compiled_step, "a")                  # warm-up: compile
    timings = {}
    for name, step in (("eager", decode_step), ("compiled", compiled_step)):
        t0 = time.process_time()
        for _ in range(8):
            names = [generate(step, c) for c in letters]
        timings[name] = (time.process_time() - t0) / (8 * len(letters) * (MAX_LEN - 1)) * 1e6

for n in names[:6]:
    print(n)
print("generated", len(names), "names")
print(f"eager {timings['eager']:.1f} us/token, compiled {timings['compiled']:.1f} us/token, "
      f"speed-up {timings['eager'] / timings['compiled']:.2f}x", file=sys.stderr)
