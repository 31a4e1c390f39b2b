"""Sampling from a tiny Llama (random weights) with a hand-written decode loop
and a KV cache, using HF's TemperatureLogitsWarper + TopKLogitsWarper. The
temperature is annealed from 1.3 down to 0.7 over the generation ("explore
early, commit late"); the per-token step is compiled. The float
temperature is read by the compiled step every call (correct program)."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM, DynamicCache
from transformers.generation.logits_process import TemperatureLogitsWarper, TopKLogitsWarper
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
torch.manual_seed(0)
cfg = LlamaConfig(num_hidden_layers=2, hidden_size=32, intermediate_size=64,
                  num_attention_heads=4, num_key_value_heads=2, vocab_size=96,
                  max_position_embeddings=128, bos_token_id=0, eos_token_id=1, pad_token_id=2)
model = LlamaForCausalLM(cfg).eval()
temperature = TemperatureLogitsWarper(1.3)
top_k = TopKLogitsWarper(top_k=8)


@torch.compile
def sample_step(tokens, cache, u):
    logits = model(tokens, past_key_values=cache, use_cache=True).logits[:, -1, :]
    logits = top_k(tokens, temperature(tokens, logits))
    probs = torch.softmax(logits, dim=-1)
    # inverse-CDF sampling with a uniform draw made outside the compiled step
    idx = (probs.cumsum(-1) < u).sum(-1, keepdim=True).clamp(max=probs.shape[-1] - 1)
    return idx


def generate(prompt, new_tokens=16):
    cache = DynamicCache(config=cfg)
    tokens, out = prompt, [prompt]
    with torch.no_grad():
        for t in range(new_tokens):
            temperature.temperature = 1.3 - 0.6 * t / (new_tokens - 1)
            u = torch.rand(prompt.shape[0], 1)
            tokens = sample_step(tokens, cache, u)
            out.append(tokens)
    return torch.cat(out, dim=1)


prompt = torch.randint(3, 96, (2, 6))
seqs = generate(prompt)
for row in seqs.tolist():
    print("sample:", row)
print("distinct new tokens:", len(set(seqs[:, 6:].flatten().tolist())))
