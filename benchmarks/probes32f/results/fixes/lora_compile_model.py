# LoRA on every linear of a small MLP-mixer style model, with a rank budget that
# grows with depth; the adapter's forward is the hot path, so it is compiled.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha=16.0):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(rank, base.in_features) / rank)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scale = alpha / rank


    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t()) @ self.lora_B.t() * self.scale


class MLPBlock(nn.Module):
    def __init__(self, dim, rank):
        super().__init__()
        self.up = LoRALinear(nn.Linear(dim, 2 * dim), rank)
        self.down = LoRALinear(nn.Linear(2 * dim, dim), rank)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(x)))


ranks = [2, 4, 4, 8, 8, 16, 32]
model = nn.Sequential(*[MLPBlock(32, r) for r in ranks], nn.Linear(32, 4))
compiled = torch.compile(model)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-3)
x = torch.randn(256, 32)
y = (x[:, :4] * x[:, 4:8]).argmax(1)
for epoch in range(5):
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
