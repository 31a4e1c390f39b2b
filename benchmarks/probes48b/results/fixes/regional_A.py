"""Greedy generation with a 10-layer Llama, using regional compilation: each decoder
layer is compiled on its own (the PyTorch "regional compilation" recipe, meant to cut
cold-start time because the repeated layers share one compiled code).

Each layer reads its own slot of the DynamicCache (cache.layers[self.layer_idx]) and the
slot's lazy `is_initialized` flag, so Dynamo keeps one compiled entry per layer and per
cache state; the shared code hits the recompile limit (8) during the prefill, and the
layers past it, and every decode step, run eagerly.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
cfg = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=10,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                  pad_token_id=0, eos_token_id=None, bos_token_id=None)
model = LlamaForCausalLM(cfg).eval()

torch._dynamo.config.recompile_limit = 64
for layer in model.model.layers:
    layer.compile()

prompts = torch.randint(1, 256, (3, 2, 8))
with torch.no_grad():
    for i, ids in enumerate(prompts):
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=6,
                             do_sample=False)
        print(f"request {i}: {out[:, ids.shape[1]:].tolist()}")
