"""Early-exit study on a tiny Llama, compiled per decoder layer.

Same sweep as hf_llama_early_exit_depth_sweep.py (lower
`config.num_hidden_layers` and measure the LM loss), but torch.compile is
applied to each decoder layer (regional compilation) instead of the whole
model: the Python loop over `self.layers[: num_hidden_layers]` runs eagerly,
so changing the depth only changes how many compiled layers are called.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

DEPTH = 6
cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=DEPTH,
                  num_attention_heads=2, num_key_value_heads=2, vocab_size=512,
                  max_position_embeddings=64, pad_token_id=0)
model = LlamaForCausalLM(cfg).eval()
for layer in model.model.layers:
    layer.compile()

motif = torch.randint(1, 512, (8,))
data = motif.repeat(4, 4)[:, :32].clone()
noise = torch.rand(data.shape) < 0.2
data[noise] = torch.randint(1, 512, (int(noise.sum()),))


@torch.no_grad()
def eval_loss_at_depth(k):
    model.config.num_hidden_layers = k  # exit after k decoder layers
    out = model(input_ids=data, labels=data, use_cache=False)  # no KV cache in a scoring pass
    return out.loss.item()


results = {}
for k in range(1, DEPTH + 1):
    results[k] = eval_loss_at_depth(k)
    print(f"exit after {k} layer(s): loss {results[k]:.4f}")
model.config.num_hidden_layers = DEPTH
best = min(results, key=results.get)
print(f"best exit depth {best} (loss {results[best]:.4f})")
