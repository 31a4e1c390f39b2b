"""transformers 5.25.0, GemmaForCausalLM (built from GemmaConfig, random weights), with
attn_implementation="flex_attention".

Fine-tuning a compiled Gemma on the CPU with FlexAttention, batches from a collate function
that pads to the longest sequence of each batch (lengths vary per step). transformers' flex
path calls its own compiled flex_attention; on the CPU FlexAttention has no backward, and since
the query/key/value require grad in training, the first forward ends with
"NotImplementedError: FlexAttention does not support backward on CPU. Please set the input
requires_grad to False or use another device." (torch/nn/attention/flex_attention.py,
_validate_device), raised through the compiled call. huggingface/transformers#40345 (open,
"Flexattention Implementation in Gemma Failing on CPU": "torch.compile on CPU only supports
inference") reports the same limit; the fix is sdpa on the CPU, or FlexAttention only under
no_grad / on a GPU.
"""
import torch
from transformers import GemmaConfig, GemmaForCausalLM

torch.manual_seed(0)
config = GemmaConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                     num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                     max_position_embeddings=64)
model = GemmaForCausalLM(config).train()
model.set_attn_implementation("flex_attention")
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
compiled = torch.compile(model)


def collate(seqs):
    n = max(len(s) for s in seqs)
    ids = torch.zeros(len(seqs), n, dtype=torch.long)
    mask = torch.zeros(len(seqs), n, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = s
        mask[i, :len(s)] = 1
    return ids, mask, ids.masked_fill(mask == 0, -100)


for step in range(5):
    seqs = [torch.randint(1, 100, (int(torch.randint(4, 16, ())),)) for _ in range(3)]
    ids, mask, labels = collate(seqs)
    out = compiled(input_ids=ids, attention_mask=mask, labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} len {ids.shape[1]} loss {out.loss.item():.4f}")
