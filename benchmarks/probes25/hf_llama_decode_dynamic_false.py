"""Greedy decoding with a tiny random-weight Llama; the model's forward is compiled with
dynamic=False and the loop feeds one new token per step with the KV cache, as a hand-written
generate loop does."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
cfg = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
model = LlamaForCausalLM(cfg).eval()
model.forward = torch.compile(model.forward, dynamic=False)  # fixed shapes: "faster kernels"


@torch.no_grad()
def generate(prompt, new_tokens):
    out = model(input_ids=prompt, use_cache=True)
    past = out.past_key_values
    tok = out.logits[:, -1].argmax(-1, keepdim=True)
    seq = [tok]
    for step in range(new_tokens):
        out = model(input_ids=tok, past_key_values=past, use_cache=True)
        past = out.past_key_values
        tok = out.logits[:, -1].argmax(-1, keepdim=True)
        seq.append(tok)
    return torch.cat(seq, dim=1)


prompt = torch.randint(0, 128, (1, 8))
print(generate(prompt, 12).tolist())
