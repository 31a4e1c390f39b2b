# LoRA on the attention projections of a tiny encoder, dropout on the adapter
# path only; evaluation compares the base model (adapters off) with the tuned one.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LoRALinear(nn.Module):
    def __init__(self, dim, rank=4, alpha=8.0, p=0.1):
        super().__init__()
        self.base = nn.Linear(dim, dim).requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(rank, dim) * 0.02)
        self.lora_B = nn.Parameter(torch.zeros(dim, rank))
        self.dropout = nn.Dropout(p)
        self.scale = alpha / rank
        self.enabled = True

    def forward(self, x):
        out = self.base(x)
        if self.enabled:
            out = out + (self.dropout(x) @ self.lora_A.t()) @ self.lora_B.t() * self.scale
        return out


class Encoder(nn.Module):
    def __init__(self, vocab=100, dim=32, classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim).requires_grad_(False)
        self.q, self.v = LoRALinear(dim), LoRALinear(dim)
        self.k = nn.Linear(dim, dim).requires_grad_(False)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        h = self.emb(tokens)
        attn = F.scaled_dot_product_attention(self.q(h), self.k(h), self.v(h))
        return self.head((h + attn).mean(1))


def set_adapters(model, on):
    for m in model.modules():
        if isinstance(m, LoRALinear):
            m.enabled = on


model = Encoder()
compiled = torch.compile(model)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
tokens = torch.randint(0, 100, (64, 12))
labels = tokens[:, 0] % 4
for step in range(6):
    model.train()
    loss = F.cross_entropy(compiled(tokens), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        set_adapters(model, False)
        base_loss = F.cross_entropy(compiled(tokens), labels).item()
        set_adapters(model, True)
        tuned_loss = F.cross_entropy(compiled(tokens), labels).item()
    print(f"step {step}: train {loss.item():.4f}  eval base {base_loss:.4f}  eval lora {tuned_loss:.4f}")
