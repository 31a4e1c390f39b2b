import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
device = "cuda"


class GatedMLP(nn.Module):
    def __init__(self, dim=1024, hidden=2816):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        h = F.silu(self.w1(x)) * self.w3(x)
        if "H100" in torch.cuda.get_device_name() or "H200" in torch.cuda.get_device_name():
            h = h.to(torch.bfloat16)
        return self.w2(h.to(self.w2.weight.dtype))


class Block(nn.Module):
    def __init__(self, dim=1024):
        super().__init__()
        self.norm = nn.RMSNorm(dim)
        self.mlp = GatedMLP(dim)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


model = nn.Sequential(*[Block() for _ in range(4)]).to(device=device, dtype=torch.bfloat16)
compiled = torch.compile(model)

with torch.inference_mode():
    for step in range(5):
        x = torch.randn(16, 256, 1024, device=device, dtype=torch.bfloat16)
        y = compiled(x)
        print(f"step {step} out {y.float().abs().mean().item():.4f}")
