"""transformers 5.25.0, LlamaForCausalLM (built from LlamaConfig, random weights).

`model.forward = torch.compile(model.forward, dynamic=False)` and `model.generate(...)` with
the default DynamicCache: each decoding step hands the compiled forward a cache whose
key/value tensors are one token longer, so with dynamic shapes off every new token fails the
size guard on `kwargs['cache'].layers[0].keys` and recompiles. pytorch/pytorch#131265
(torch.compile on the forward of Meta Llama in generate) tracks the recompilations of a
compiled forward under generate; the fixes are a StaticCache (`cache_implementation="static"`)
or leaving dynamic shapes on.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     num_key_value_heads=2, intermediate_size=64, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
model.forward = torch.compile(model.forward, dynamic=False)

prompt = torch.randint(0, 100, (1, 5))
tokens = model.generate(prompt, max_new_tokens=6, do_sample=False)
print("generated:", tokens[0, 5:].tolist())
