# Fine-tuning a small Longformer classifier (transformers, built from a config, random weights)
# with global attention on the [CLS] token.  The user compiles the training forward with
# fullgraph=True to be sure the whole model is one graph.  LongformerEncoder.forward does
# `is_global_attn = is_index_global_attn.flatten().any().item()` and branches on it in Python,
# a data-dependent scalar that Dynamo cannot put in a graph, so fullgraph=True raises at the
# first step.  Fix: drop fullgraph=True (accept the break; capture_scalar_outputs alone does
# not help since the value is then used in a Python `if`), or keep the model eager.
import torch
from transformers import LongformerConfig, LongformerForSequenceClassification

torch.manual_seed(0)
cfg = LongformerConfig(vocab_size=200, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                       intermediate_size=64, max_position_embeddings=80, attention_window=8,
                       num_labels=3, pad_token_id=1)
model = LongformerForSequenceClassification(cfg)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
compiled = torch.compile(model)  # compdiag's fix: fullgraph=True off

input_ids = torch.randint(5, 200, (4, 32))
attention_mask = torch.ones_like(input_ids)
global_attention_mask = torch.zeros_like(input_ids)
global_attention_mask[:, 0] = 1  # [CLS] attends globally
labels = torch.tensor([0, 1, 2, 1])

for step in range(3):
    out = compiled(input_ids=input_ids, attention_mask=attention_mask,
                   global_attention_mask=global_attention_mask, labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {out.loss.item():.4f}")
