"""Constrained greedy decoding with a tiny GPT-2 (random weights): the next token
must follow a small "grammar" (digits may only be followed by digits or an
operator, operators by digits). The grammar is a (vocab x vocab) boolean table
looked up with the last token, so the whole compiled decode step stays on
tensors (correct cousin of hf_gpt2_prefix_allowed_fn_item.py)."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
torch.manual_seed(0)
VOCAB = 40
DIGITS = list(range(10, 20))
OPS = list(range(20, 24))
cfg = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=64,
                 bos_token_id=0, eos_token_id=1, pad_token_id=1)
model = GPT2LMHeadModel(cfg).eval()

ALLOWED = torch.zeros(VOCAB, VOCAB, dtype=torch.bool)
for tok in range(VOCAB):
    nxt = DIGITS if tok in OPS or tok not in DIGITS else DIGITS + OPS
    ALLOWED[tok, nxt] = True


@torch.compile
def decode_step(input_ids, past_key_values):
    out = model(input_ids[:, -1:] if past_key_values is not None else input_ids,
                past_key_values=past_key_values, use_cache=True)
    scores = out.logits[:, -1, :]
    scores = scores.masked_fill(~ALLOWED[input_ids[:, -1]], float("-inf"))
    return scores.argmax(-1, keepdim=True), out.past_key_values


def generate(prompt, steps=8):
    ids, past = prompt, None
    with torch.no_grad():
        for _ in range(steps):
            nxt, past = decode_step(ids, past)
            ids = torch.cat([ids, nxt], dim=1)
    return ids


prompt = torch.tensor([[0, 12, 20], [0, 15, 16]])
out = generate(prompt)
for row in out.tolist():
    print("expr:", row)
ok = all(((a in OPS) <= (b in DIGITS)) for row in out[:, 2:].tolist() for a, b in zip(row, row[1:]))
print("grammar respected:", ok)
