# Token sampler compiled with dynamic=False, called with a per-request Python int top_k
# (test_recompiles.py test_no_recursive_compile_after_cache_limit_hit: a Python int
# argument under dynamic=False is a constant, one compile per value, then the limit).
import torch
import torch.nn as nn

torch.manual_seed(0)
vocab, d = 500, 64
lm_head = nn.Linear(d, vocab)


@torch.compile(dynamic=False)
def scaled_logits(hidden, temperature):
    return lm_head(hidden) / temperature


def sample(hidden, top_k, temperature):
    logits = scaled_logits(hidden, temperature)
    vals, idx = logits.topk(top_k, dim=-1)
    probs = torch.softmax(vals, dim=-1)
    choice = torch.multinomial(probs, 1)
    return idx.gather(-1, choice).squeeze(-1)


requests = [(k, 0.8) for k in (5, 10, 20, 40, 8, 16, 32, 50, 12, 25, 30, 45)]
with torch.no_grad():
    for i, (top_k, temp) in enumerate(requests):
        hidden = torch.randn(4, d)
        tokens = sample(hidden, top_k, temp)
        print(f"request {i}: top_k={top_k} tokens={tokens.tolist()}")
