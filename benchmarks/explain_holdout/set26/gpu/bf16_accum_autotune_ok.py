"""bf16 autocast training of a small MLP classifier with gradient accumulation (4 micro-batches
per optimizer step), compiled with mode="max-autotune-no-cudagraphs".
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class MLP(nn.Module):
    def __init__(self, dim=1024, classes=16):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, classes)

    def forward(self, x):
        x = x + F.gelu(self.fc1(x))
        x = x + F.gelu(self.fc2(x))
        return self.out(x)


model = MLP().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
cmodel = torch.compile(model, mode="max-autotune-no-cudagraphs")
accum_steps = 4

for step in range(5):
    for micro in range(accum_steps):
        x = torch.randn(256, 1024, device=device)
        y = torch.randint(0, 16, (256,), device=device)
        with torch.autocast(device, dtype=torch.bfloat16):
            loss = F.cross_entropy(cmodel(x).float(), y) / accum_steps
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item() * accum_steps:.4f}")
