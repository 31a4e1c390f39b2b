# LoRA fine-tuning of a small classifier; the adapter's contribution is ramped
# in over the first steps (alpha warm-up). Shapes never change, so the model is
# compiled with dynamic=False.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LoRALinear(nn.Module):
    def __init__(self, base, rank=8):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(rank, base.in_features) * 0.02)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.rank = rank
        self.scale = 0.0

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t()) @ self.lora_B.t() * self.scale


class Classifier(nn.Module):
    def __init__(self, dim=64, classes=6):
        super().__init__()
        self.fc1 = LoRALinear(nn.Linear(dim, dim))
        self.fc2 = LoRALinear(nn.Linear(dim, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(F.gelu(self.fc2(F.gelu(self.fc1(x)))))


model = Classifier()
compiled = torch.compile(model, dynamic=False)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
alpha, warmup = 16.0, 10
x = torch.randn(256, 64)
y = (x[:, :6] ** 2).argmax(1)
for step in range(14):
    ramp = min(1.0, (step + 1) / warmup)
    for layer in (model.fc1, model.fc2):
        layer.scale = alpha / layer.rank * ramp
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step:2d}: lora scale {model.fc1.scale:.2f}  loss {loss.item():.4f}")
