"""Streaming (frame-by-frame) audio decoder that keeps its own frame clock as an
itertools.count() and reads the sinusoidal time embedding at next(self._clock) inside the
compiled forward.  Dynamo guards on the count's position, so every frame recompiles until
the recompile limit, after which forward runs eagerly."""
import itertools
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
MAX_FRAMES, D = 64, 32


def sinusoid_table(n, d):
    pos = torch.arange(n).unsqueeze(1).float()
    div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
    t = torch.zeros(n, d)
    t[:, 0::2] = torch.sin(pos * div)
    t[:, 1::2] = torch.cos(pos * div)
    return t


class StreamingDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(16, D)
        self.gru = nn.GRUCell(D, D)
        self.out = nn.Linear(D, 5)
        self.register_buffer("time_emb", sinusoid_table(MAX_FRAMES, D))
        self.reset()

    def reset(self):
        self._clock = itertools.count()
        self.h = torch.zeros(1, D)

    def forward(self, frame):
        t = next(self._clock)
        x = torch.tanh(self.inp(frame)) + self.time_emb[t]
        self.h = self.gru(x, self.h)
        return self.out(self.h).log_softmax(-1)


@torch.no_grad()
def main():
    dec = torch.compile(StreamingDecoder().eval())
    frames = torch.randn(2, 20, 1, 16)
    for utt in range(2):
        dec.reset()
        labels = []
        score = 0.0
        for f in frames[utt]:
            lp = dec(f)
            labels.append(int(lp.argmax()))
            score += float(lp.max())
        print(f"utt {utt} labels {labels} score {score:.5f}")


if __name__ == "__main__":
    main()
