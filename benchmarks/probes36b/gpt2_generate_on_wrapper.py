# Serving a small GPT-2: the user compiles the model, then calls generate on the compiled
# module and times it, expecting the compiled forward to be used for every decode step.
import time
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
cfg = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=100, n_positions=64,
                 bos_token_id=0, eos_token_id=99, pad_token_id=99)
model = GPT2LMHeadModel(cfg).eval()
model = torch.compile(model)

prompts = torch.randint(1, 99, (4, 6))
mask = torch.ones_like(prompts)
mask[2:, :2] = 0  # two left-padded prompts
prompts[mask == 0] = 99

with torch.no_grad():
    for rep in range(3):
        t0 = time.perf_counter()
        out = model.generate(prompts, attention_mask=mask, max_new_tokens=8, do_sample=False)
        dt = time.perf_counter() - t0
        if rep == 0:
            for row in out.tolist():
                print(row[6:])
print("generated", out.shape[1] - prompts.shape[1], "tokens per prompt")
