"""Training a small residual MLP classifier under bf16 autocast on CUDA, the model compiled with
torch.compile. To watch activation memory the forward stores the peak allocated memory after
the residual blocks (torch.cuda.max_memory_allocated()). That call returns a Python int, not a
tensor: Dynamo cannot put it in the FX graph ("torch.* op returned non-Tensor") and breaks the
forward there, so every step runs two graphs with the head outside the first. The fix: read
torch.cuda.max_memory_allocated() in the training loop, outside the compiled module."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class ResMLP(nn.Module):
    def __init__(self, d=512, depth=4, classes=10):
        super().__init__()
        self.stem = nn.Linear(128, d)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
            for _ in range(depth))
        self.head = nn.Linear(d, classes)
        self.peak_mb = 0

    def forward(self, x):
        h = self.stem(x)
        for blk in self.blocks:
            h = h + blk(h)
        self.peak_mb = torch.cuda.max_memory_allocated() // 2**20
        return self.head(h)


model = ResMLP().to(device)
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randn(256, 128, device=device)
labels = (data[:, :10].argmax(dim=1)).to(device)

for step in range(30):
    idx = torch.arange(step % 4 * 64, step % 4 * 64 + 64, device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(cmodel(data[idx]), labels[idx])
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step % 10 == 9:
        print(f"step {step + 1}: loss {loss.item():.2f}")
print("peak memory logged:", model.peak_mb >= 0)
