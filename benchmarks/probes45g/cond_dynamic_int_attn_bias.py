"""Attention-bias builder compiled with dynamic=True; torch.cond picks causal vs. full.

Source: pytorch/pytorch#188151 ("torch.cond fails in torch.compile with simpliest
symbolic shapes (torch 2.12+)"): branches that build tensors from python-int sizes
under dynamic=True fail the cond stride check (Max(1, s) strides).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


@torch.compile(dynamic=True, fullgraph=True)
def build_bias(q_len: int, k_len: int, causal: torch.Tensor):
    def causal_fn():
        return torch.ones(q_len, k_len).triu(1)

    def full_fn():
        return torch.zeros(q_len, k_len)

    return torch.cond(causal, causal_fn, full_fn)


class TinyAttention(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, causal):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        mask = build_bias(x.shape[1], x.shape[1], causal)
        scores = scores.masked_fill(mask.bool(), float("-inf"))
        return self.out(scores.softmax(-1) @ v)


def main():
    model = TinyAttention()
    for step, seq in enumerate([5, 9, 12]):
        x = torch.randn(2, seq, 16)
        causal = torch.tensor(step % 2 == 0)
        y = model(x, causal)
        print(f"step {step} seq {seq} causal {bool(causal)} out_mean {y.mean().item():.5f}")


if __name__ == "__main__":
    main()
