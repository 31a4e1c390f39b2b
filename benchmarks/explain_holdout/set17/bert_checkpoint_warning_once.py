"""transformers 5.25.0, BertForMaskedLM (built from BertConfig, random weights).

With gradient checkpointing on and `use_cache` left at its default, transformers warns from
inside the forward (`logger.warning_once("`use_cache=True` is incompatible with gradient
checkpointing. Setting `use_cache=False`.")`, transformers/utils/generic.py). Dynamo does
not trace logging.Logger methods: every compiled training step graph-breaks on that warning
and the frame around it falls back to eager. pytorch/pytorch#123288 is the report of logger
calls breaking graphs (and `torch._dynamo.config.ignore_logger_methods`); the fix here is
to pass `use_cache=False` (or set it in the config).
"""
import torch
from transformers import BertConfig, BertForMaskedLM

torch.manual_seed(0)
config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=64, max_position_embeddings=64)
model = BertForMaskedLM(config)
model.gradient_checkpointing_enable()
model.train()
compiled = torch.compile(model)

for step in range(2):
    ids = torch.randint(0, 100, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 5:] = 0  # padding
    out = compiled(input_ids=ids, attention_mask=mask, labels=ids)
    out.loss.backward()
    print(f"step {step} loss {out.loss.item():.4f}")
