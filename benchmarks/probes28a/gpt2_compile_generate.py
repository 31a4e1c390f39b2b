"""Greedy completions from a small GPT-2, compiling generate() itself to speed up serving."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=500, n_positions=128,
                    bos_token_id=1, eos_token_id=2, pad_token_id=0)
model = GPT2LMHeadModel(config).eval()
generate = torch.compile(model.generate)

prompts = [torch.randint(3, 500, (1, 6)), torch.randint(3, 500, (1, 6))]
with torch.no_grad():
    for i, prompt in enumerate(prompts):
        out = generate(prompt, max_new_tokens=8, do_sample=False)
        print(f"prompt {i}: {out[0, prompt.shape[1]:].tolist()}")
