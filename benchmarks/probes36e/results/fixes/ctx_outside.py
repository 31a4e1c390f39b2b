# Serving: a per-request sampling temperature kept in a contextvars.ContextVar
# (set by the request handler), read inside the compiled scoring function.
import contextvars
import torch
import torch.nn as nn

torch.manual_seed(0)
TEMPERATURE = contextvars.ContextVar("temperature", default=1.0)


class Scorer(nn.Module):
    def __init__(self, vocab=32, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.proj = nn.Linear(d, vocab)

    def forward(self, ids, t):
        h = self.emb(ids).mean(1)
        logits = self.proj(torch.tanh(h))
        return torch.softmax(logits / t, dim=-1)


model = Scorer().eval()
score = torch.compile(model)


def handle_request(ids, temperature):
    token = TEMPERATURE.set(temperature)
    try:
        with torch.no_grad():
            return score(ids, torch.tensor(TEMPERATURE.get()))
    finally:
        TEMPERATURE.reset(token)


for temp in (1.0, 0.7, 1.3):
    ids = torch.randint(0, 32, (4, 6))
    probs = handle_request(ids, temp)
    top = probs.argmax(-1).tolist()
    print(f"temp={temp}: top={top} maxp={probs.max().item():.4f}")
