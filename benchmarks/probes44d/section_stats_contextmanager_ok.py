"""Correct cousin: Python-side bookkeeping inside a compiled forward that
Dynamo replays correctly -- a contextlib.contextmanager that counts entries
per named section into a dict on the model, a call counter on self, and a
set of seen input shapes.  All three match eager after compile."""
import contextlib

import torch
import torch.nn as nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.mix = nn.Linear(d, d)
        self.section_counts = {}
        self.calls = 0
        self.seen_shapes = set()

    @contextlib.contextmanager
    def section(self, name):
        self.section_counts[name] = self.section_counts.get(name, 0) + 1
        yield

    def forward(self, x):
        self.calls += 1
        self.seen_shapes.add(tuple(x.shape))
        with self.section("proj"):
            h = torch.relu(self.proj(x))
        with self.section("mix"):
            h = h + self.mix(h)
        return h.mean(1)


def main():
    enc = Encoder()
    cenc = torch.compile(enc)
    with torch.no_grad():
        for i in range(4):
            x = torch.randn(8, 10, 16)
            out = cenc(x)
            print(f"batch {i}: out mean {out.mean().item():+.5f}")
    print("calls", enc.calls)
    print("sections", sorted(enc.section_counts.items()))
    print("shapes", sorted(enc.seen_shapes))


if __name__ == "__main__":
    main()
