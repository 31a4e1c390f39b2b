"""Tiny LM sampling server: each request carries its own seed so that replies are
reproducible per request.  The compiled decode step takes the request's torch.Generator
and samples the next token with torch.multinomial(..., generator=gen)."""
from dataclasses import dataclass

import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM, CTX = 64, 32, 5


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Parameter(torch.randn(CTX, DIM) * 0.1)
        self.mix = nn.Sequential(nn.Linear(CTX * DIM, DIM), nn.GELU())
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, window):
        h = self.emb(window) + self.pos
        return self.head(self.mix(h.flatten(1)))


@dataclass
class Request:
    rid: int
    prompt: list
    seed: int
    temperature: float = 0.8
    max_new_tokens: int = 4


model = TinyLM().eval()


@torch.compile
def decode_step(window, gen, temperature):
    logits = model(window) / temperature
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=gen)


def handle(req):
    gen = torch.Generator().manual_seed(req.seed)
    tokens = list(req.prompt)
    for _ in range(req.max_new_tokens):
        window = torch.tensor([tokens[-CTX:]])
        nxt = decode_step(window, gen, req.temperature)
        tokens.append(int(nxt))
    return tokens[len(req.prompt):]


requests = [Request(rid=i, prompt=[(3 * i + j) % VOCAB for j in range(5)], seed=100 + i)
            for i in range(4)]
with torch.inference_mode():
    for req in requests:
        print(f"request {req.rid}: {handle(req)}")
