"""Adapter-style fine-tune of a causal LM on CPU: the base Llama is frozen, only the
LM head is trained, and the training step is compiled.

Following the PEFT recipe (prepare_model_for_kbit_training / the transformers docs on
training adapters), the script calls model.enable_input_require_grads(), which registers
a forward hook on the input embeddings that calls output.requires_grad_(True).
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
model.enable_input_require_grads()

model.train()
cmodel = torch.compile(model)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)

data = torch.randint(0, 256, (4, 2, 16))
for step, ids in enumerate(data[:2]):
    emb = model.get_input_embeddings()(ids).requires_grad_(True)
    out = cmodel(inputs_embeds=emb, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step}: loss {out.loss.item():.4f}")

trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("trainable params:", trainable)
