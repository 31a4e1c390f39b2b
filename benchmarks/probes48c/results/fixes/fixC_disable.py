"""Streaming keyword-spotting encoder: one utterance at a time (frames x features),
single-head self-attention with a learned relative-position bias that the forward
scatters into an (L, L) bias matrix by index assignment.

After pytorch/pytorch#196570 (and #188228): Inductor's CPP backend fails with
`KeyError: 'buf1'` when a buffer filled in place by an index_put feeds a softmax.
"""
import math
import torch
import torch.nn as nn


@torch.compiler.disable
def _scatter_bias(bias, pos, values):
    bias[pos.unsqueeze(1), pos.unsqueeze(0)] = values


class RelPosAttention(nn.Module):
    def __init__(self, dim=32, max_rel=4):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.max_rel = max_rel
        self.rel_table = nn.Parameter(torch.randn(2 * max_rel + 1) * 0.1)

    def rel_bias(self, length):
        bias = torch.full((length, length), -10000.0)
        pos = torch.arange(length)
        rel = (pos.unsqueeze(0) - pos.unsqueeze(1)).clamp(-self.max_rel, self.max_rel)
        _scatter_bias(bias, pos, self.rel_table[rel + self.max_rel])
        return bias

    def forward(self, frames):                      # frames: (L, dim), one utterance
        q, k, v = self.qkv(frames).chunk(3, dim=-1)
        scores = q @ k.t() / math.sqrt(q.shape[-1])
        attn = torch.softmax(scores + self.rel_bias(frames.shape[0]), dim=-1)
        return self.proj(attn @ v)


class KeywordSpotter(nn.Module):
    def __init__(self, n_mels=20, dim=32, n_keywords=6):
        super().__init__()
        self.inp = nn.Linear(n_mels, dim)
        self.attn = RelPosAttention(dim)
        self.head = nn.Linear(dim, n_keywords)

    def forward(self, mel):
        h = torch.relu(self.inp(mel))
        h = h + self.attn(h)
        return self.head(h.mean(0))


def main():
    torch.manual_seed(0)
    model = KeywordSpotter().eval()
    compiled = torch.compile(model)
    with torch.no_grad():
        for i in range(3):
            mel = torch.randn(24, 20)
            ref = model(mel)
            out = compiled(mel)
            print(f"utterance {i}: keyword {int(out.argmax())} (eager {int(ref.argmax())}) "
                  f"max diff {(out - ref).abs().max().item():.1e}")


if __name__ == "__main__":
    main()
