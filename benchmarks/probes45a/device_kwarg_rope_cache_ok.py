"""Correct cousin of device_ctx_rope_cache.py: the factory calls take
`device=x.device` instead of running under `with torch.device(...)`.

Small rotary-embedding language model; the rotary table is (re)built inside
forward under a `with torch.device(x.device):` block so the factory calls land
on the input's device. torch.device as a context manager is a TorchFunctionMode
(pytorch/pytorch#91525); Dynamo's device-context handling was reworked in 2026
(pytorch/pytorch#181848, #196938) but `with torch.device(...)` inside a compiled
region is still not handled on torch 2.13.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Rotary(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        self.dim = dim
        self.base = base

    def forward(self, x):
        seq_len = x.shape[1]
        dev = x.device
        inv_freq = 1.0 / (self.base ** (torch.arange(0, self.dim, 2, device=dev).float() / self.dim))
        t = torch.arange(seq_len, device=dev).float()
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return x * emb.cos() + rotate_half(x) * emb.sin()


class TinyLM(nn.Module):
    def __init__(self, vocab=50, dim=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.rope = Rotary(dim)
        self.mix = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        h = self.rope(self.tok(ids))
        h = h + torch.tanh(self.mix(h))
        return self.head(h)


def main():
    torch.manual_seed(0)
    model = TinyLM()
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    data = torch.randint(0, 50, (32, 17))
    for step in range(15):
        batch = data[(torch.arange(8) + step * 8) % 32]
        logits = cmodel(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 50), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    print(f"final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
