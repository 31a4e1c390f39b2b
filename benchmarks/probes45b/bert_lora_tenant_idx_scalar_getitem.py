"""Multi-tenant LoRA serving on a tiny random-weight HF BERT classifier.

LoRA adapters (one per tenant) are injected into the attention query/value
projections before compiling; all tenants' adapter weights live in stacked
parameters and each request selects its tenant with an index held in a tensor
buffer (the punica / S-LoRA style of batching adapters).
"""
import torch
import torch.nn as nn
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
cfg = BertConfig(vocab_size=200, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64, num_labels=3)
model = BertForSequenceClassification(cfg).eval()
TENANTS = [f"tenant{i:02d}" for i in range(12)]


class MultiLoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, n, r=4, alpha=8.0):
        super().__init__()
        self.base, self.scaling = base, alpha / r
        self.A = nn.Parameter(torch.randn(n, r, base.in_features) * 0.05)
        self.B = nn.Parameter(torch.randn(n, base.out_features, r) * 0.05)
        self.register_buffer("idx", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        a, b = self.A[self.idx], self.B[self.idx]
        return self.base(x) + (x @ a.t() @ b.t()) * self.scaling


def inject_lora(m, n):
    for layer in m.bert.encoder.layer:
        attn = layer.attention.self
        attn.query = MultiLoRALinear(attn.query, n)
        attn.value = MultiLoRALinear(attn.value, n)


def set_adapter(m, i):
    for mod in m.modules():
        if isinstance(mod, MultiLoRALinear):
            mod.idx.fill_(i)


batch = torch.randint(1, 200, (4, 24))
mask = torch.ones_like(batch)
with torch.no_grad():
    base_logits = model(input_ids=batch, attention_mask=mask).logits
    inject_lora(model, len(TENANTS))
    compiled = torch.compile(model)
    preds = {}
    for step in range(2):
        for i, name in enumerate(TENANTS):   # round-robin over tenants' requests
            set_adapter(model, i)
            logits = compiled(input_ids=batch, attention_mask=mask).logits
            preds[name] = logits.argmax(-1).tolist()
print("base", base_logits.argmax(-1).tolist())
for name in TENANTS[:4]:
    print(name, preds[name])
print("tenants served", len(preds))
