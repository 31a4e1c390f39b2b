"""transformers 5.25.0, LlamaForCausalLM (built from LlamaConfig, random weights).

Gradient checkpointing (`model.gradient_checkpointing_enable()`) wraps each decoder layer in
torch.utils.checkpoint. Dynamo traces a checkpointed region as a higher-order op that must
be free of side effects outside it; the Llama layer's hub-kernel forward
(kernels' CompileableContextVar.set, reached through transformers) writes an attribute of an
object created outside the region. Dynamo refuses it ("HOP: Unsafe side effect ...
torch.utils.checkpoint.checkpoint ... Attempted to mutate CompileableContextVar"), and
because the layer runs in a for loop, the whole LlamaModel.forward is skipped and runs in
eager every step. pytorch/pytorch#124866 (open): "support side effects in HOPs?", for
checkpoint regions that mutate state. `use_cache=False` is passed so transformers' own
use_cache warning does not break first.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     num_key_value_heads=2, intermediate_size=64, max_position_embeddings=64)
model = LlamaForCausalLM(config)
model.gradient_checkpointing_enable()
model.train()
compiled = torch.compile(model)

for step in range(2):
    ids = torch.randint(0, 100, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, :3] = 0  # left padding
    out = compiled(input_ids=ids, attention_mask=mask, labels=ids, use_cache=False)
    out.loss.backward()
    print(f"step {step} loss {out.loss.item():.4f}")
