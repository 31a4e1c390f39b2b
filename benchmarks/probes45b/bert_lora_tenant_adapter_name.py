"""Multi-tenant LoRA serving on a tiny random-weight HF BERT classifier.

The base model is compiled and warmed up first; LoRA adapters (one per tenant)
are injected into the attention query/value projections afterwards, and each
request selects its tenant's adapter by name before the forward pass.
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
    def __init__(self, base: nn.Linear, names, r=4, alpha=8.0):
        super().__init__()
        self.base, self.scaling, self.active = base, alpha / r, None
        self.A = nn.ParameterDict({n: nn.Parameter(torch.randn(r, base.in_features) * 0.05) for n in names})
        self.B = nn.ParameterDict({n: nn.Parameter(torch.randn(base.out_features, r) * 0.05) for n in names})

    def forward(self, x):
        out = self.base(x)
        if self.active is not None:
            out = out + (x @ self.A[self.active].t() @ self.B[self.active].t()) * self.scaling
        return out


def inject_lora(m, names):
    for layer in m.bert.encoder.layer:
        attn = layer.attention.self
        attn.query = MultiLoRALinear(attn.query, names)
        attn.value = MultiLoRALinear(attn.value, names)


def set_adapter(m, name):
    for mod in m.modules():
        if isinstance(mod, MultiLoRALinear):
            mod.active = name


compiled = torch.compile(model)
batch = torch.randint(1, 200, (4, 24))
mask = torch.ones_like(batch)
with torch.no_grad():
    base_logits = compiled(input_ids=batch, attention_mask=mask).logits   # warm-up
    inject_lora(model, TENANTS)
    preds = {}
    for step in range(2):
        for name in TENANTS:             # round-robin over tenants' requests
            set_adapter(model, name)
            logits = compiled(input_ids=batch, attention_mask=mask).logits
            preds[name] = logits.argmax(-1).tolist()
print("base", base_logits.argmax(-1).tolist())
for name in TENANTS[:4]:
    print(name, preds[name])
print("tenants served", len(preds))
