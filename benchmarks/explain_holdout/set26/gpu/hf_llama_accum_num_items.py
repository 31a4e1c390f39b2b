"""Gradient accumulation for a small Llama (built from LlamaConfig, random weights) in bf16.

The loss is normalised over the whole accumulation window, as transformers' Trainer does since
the gradient-accumulation loss fix: `num_items_in_batch` (the number of label tokens in the
window) is passed to the model, whose loss_function divides the summed loss by it. The model
is compiled with dynamic=False to keep static-shape kernels.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
config = LlamaConfig(vocab_size=512, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=4, intermediate_size=256, max_position_embeddings=128)
model = LlamaForCausalLM(config).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
cmodel = torch.compile(model, dynamic=False)

accum_steps, batch, seq = 4, 8, 64


def make_micro_batch():
    ids = torch.randint(0, 512, (batch, seq), device=device)
    lengths = torch.randint(seq // 2, seq + 1, (batch,), device=device)
    labels = ids.masked_fill(torch.arange(seq, device=device) >= lengths[:, None], -100)
    return ids, labels


for step in range(5):
    micro = [make_micro_batch() for _ in range(accum_steps)]
    num_items = sum(int((labels[:, 1:] != -100).sum()) for _, labels in micro)
    for ids, labels in micro:
        with torch.autocast(device, dtype=torch.bfloat16):
            out = cmodel(input_ids=ids, labels=labels, num_items_in_batch=num_items)
        out.loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} items {num_items} loss {out.loss.item() * accum_steps:.4f}")
