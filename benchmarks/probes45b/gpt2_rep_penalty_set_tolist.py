"""Greedy decoding with a tiny random-weight HF GPT-2 and a KV cache.

The logits post-processing (repetition penalty + temperature + greedy pick) is
compiled, as people do to speed up the per-token sampling step.  The penalty is
written the way transformers 2.x/3.x wrote it (enforce_repetition_penalty_):
a Python loop over set(prev_tokens.tolist()).
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
VOCAB, PROMPT, WINDOW, NEW = 96, 16, 16, 24
cfg = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=64, n_layer=2, n_head=4)
model = GPT2LMHeadModel(cfg).eval()


@torch.compile
def pick_next(logits, recent, penalty: float, temperature: float):
    scores = logits.float() / temperature
    for i in range(scores.shape[0]):
        for tok in set(recent[i].tolist()):
            scores[i, tok] = torch.where(scores[i, tok] < 0,
                                         scores[i, tok] * penalty,
                                         scores[i, tok] / penalty)
    logp = torch.log_softmax(scores, dim=-1)
    nxt = logp.argmax(dim=-1, keepdim=True)
    return nxt, logp.gather(1, nxt)


def generate(prompt, max_new=NEW, penalty=3.0, temperature=0.8):
    ids = prompt
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
        past, total = out.past_key_values, torch.zeros(ids.shape[0])
        for _ in range(max_new):
            nxt, lp = pick_next(out.logits[:, -1, :].contiguous(), ids[:, -WINDOW:].contiguous(), penalty, temperature)
            total += lp.squeeze(1)
            ids = torch.cat([ids, nxt], dim=1)
            out = model(input_ids=nxt, past_key_values=past, use_cache=True)
            past = out.past_key_values
    return ids, total


prompts = torch.randint(0, VOCAB, (2, PROMPT))
ids, total = generate(prompts)
for row, s in zip(ids[:, PROMPT:].tolist(), total.tolist()):
    print("gen", row[:12], "logp %.3f" % s)
print("distinct tokens per row", [len(set(r)) for r in ids[:, PROMPT:].tolist()])
