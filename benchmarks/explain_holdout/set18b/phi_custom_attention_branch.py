"""transformers 5.25.0, PhiForCausalLM (built from PhiConfig, random weights), with a custom
attention function registered through transformers' AttentionInterface.

Scoring left-padded batches with a compiled Phi. The user's attention function guards against
the NaN that SDPA gives for query rows that see no key (left padding): it tests whether any such
row exists and only then patches the mask. That `if dead_rows.any():` is a Python branch on a
tensor's value, so Dynamo breaks the graph in the user's function, called by transformers from
inside every attention layer, at every forward. huggingface/transformers PR #37944 (open, "fix
graph break for torch.compile in attention mask check") is the same break in transformers' own
mask check; the fix is to patch the mask unconditionally (`attention_mask | dead_rows`).
"""
import torch
from transformers import AttentionInterface, AttentionMaskInterface, PhiConfig, PhiForCausalLM
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import sdpa_mask


def left_pad_safe_attention(module, query, key, value, attention_mask, **kwargs):
    if attention_mask is not None:
        dead_rows = ~attention_mask.any(dim=-1, keepdim=True)
        if dead_rows.any():  # left padding: rows that see no key give NaN in sdpa
            attention_mask = attention_mask | dead_rows
    return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)


AttentionInterface.register("left_pad_safe", left_pad_safe_attention)
AttentionMaskInterface.register("left_pad_safe", sdpa_mask)

torch.manual_seed(0)
config = PhiConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                   num_attention_heads=2, max_position_embeddings=64)
model = PhiForCausalLM(config).eval()
model.set_attn_implementation("left_pad_safe")
compiled = torch.compile(model)

with torch.no_grad():
    for step in range(3):
        ids = torch.randint(1, 100, (2, 10))
        mask = torch.ones(2, 10, dtype=torch.long)
        mask[0, :3] = 0  # left padding
        ids[0, :3] = 0
        out = compiled(input_ids=ids, attention_mask=mask)
        print(step, out.logits[:, -1].argmax(-1).tolist(), bool(out.logits.isnan().any()))
