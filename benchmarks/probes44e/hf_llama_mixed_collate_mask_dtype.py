"""Multi-source fine-tuning of a tiny Llama with gradient accumulation.

Batches alternate between two sources: a pre-tokenized corpus whose
attention masks come from the tokenizer (int64, as HF tokenizers return them)
and an on-the-fly "instruction" source whose collator pads the sequences itself
and derives the mask from the pad id. Both are padded to the same length.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

PAD, VOCAB, MAXLEN, ACCUM = 0, 512, 32, 2
cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=2, num_key_value_heads=2, vocab_size=VOCAB,
                  max_position_embeddings=64, pad_token_id=PAD)
model = LlamaForCausalLM(cfg).train()
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)


def pretokenized_batch(n=4):
    # what a tokenizer(..., padding="max_length") call hands back
    lens = torch.randint(MAXLEN // 2, MAXLEN + 1, (n,))
    ids = torch.randint(1, VOCAB, (n, MAXLEN))
    mask = (torch.arange(MAXLEN)[None] < lens[:, None]).long()
    return ids.masked_fill(mask == 0, PAD), mask


def instruction_batch(n=4):
    seqs = [torch.randint(1, VOCAB, (int(torch.randint(8, MAXLEN + 1, ())),)) for _ in range(n)]
    ids = torch.full((n, MAXLEN), PAD)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = s
    mask = ids.ne(PAD)
    return ids, mask


def micro_step(ids, mask):
    labels = ids.masked_fill(ids == PAD, -100)
    out = compiled(input_ids=ids, attention_mask=mask, labels=labels)
    (out.loss / ACCUM).backward()
    return out.loss.detach()


for step in range(16):
    ids, mask = pretokenized_batch() if step % 2 == 0 else instruction_batch()
    loss = micro_step(ids, mask)
    if (step + 1) % ACCUM == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
    if step % 4 == 3:
        print(f"micro-step {step + 1:3d}  loss {loss.item():.4f}")
