"""Perplexity scoring of document chunks on CPU with a small Llama using
transformers' FlexAttention backend (attn_implementation="flex_attention"), the whole
model compiled.

transformers builds the causal BlockMask inside the forward with
create_block_mask(..., _compile=True); torch 2.13 warns that `_compile` is deprecated,
and that warnings.warn call, inside the compiled region, is a graph break.
"""
import math

import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
cfg = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                  attn_implementation="flex_attention")
model = LlamaForCausalLM(cfg).eval()
cmodel = torch.compile(model)


def chunk_nll(ids):
    logits = cmodel(input_ids=ids).logits[:, :-1]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1),
                           reduction="none").view(ids.shape[0], -1).mean(1)


chunks = torch.randint(0, 256, (3, 2, 32))
total = []
with torch.no_grad():
    for i, ids in enumerate(chunks):
        nll = chunk_nll(ids)
        total.append(nll)
        print(f"chunk {i}: ppl {[round(math.exp(v), 1) for v in nll.tolist()]}")
print("corpus ppl:", round(math.exp(torch.cat(total).mean().item()), 1))
