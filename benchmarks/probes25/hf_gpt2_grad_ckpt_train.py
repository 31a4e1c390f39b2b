"""Fine-tuning a tiny random-weight GPT-2 with torch.compile; halfway through, memory gets
tight and the script turns on gradient checkpointing, as a training script's OOM fallback does."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
cfg = GPT2Config(vocab_size=128, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                 loss_type="ForCausalLM")
model = GPT2LMHeadModel(cfg)
model.train()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

for step in range(8):
    if step == 4:
        model.gradient_checkpointing_enable()
    ids = torch.randint(0, 128, (4, 32))
    out = cmodel(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(step, round(out.loss.item(), 4))
