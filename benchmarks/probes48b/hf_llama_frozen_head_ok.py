"""Adapter-style fine-tune of a causal LM on CPU: the base Llama is frozen, only the
LM head is trained, and the training step is compiled.

No gradient checkpointing is used, so the input embeddings do not need to require
grad: the loss already requires grad through the trainable head.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
cfg = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=1,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
model = LlamaForCausalLM(cfg)

# freeze the base, train the head only
model.requires_grad_(False)
model.lm_head.requires_grad_(True)

model.train()
cmodel = torch.compile(model)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)

data = torch.randint(0, 256, (4, 2, 16))
for step, ids in enumerate(data[:2]):
    out = cmodel(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step}: loss {out.loss.item():.4f}")

trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("trainable params:", trainable)
