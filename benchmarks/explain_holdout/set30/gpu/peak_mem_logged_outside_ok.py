"""The fixed counterpart of peak_mem_in_compiled_forward: the same bf16-autocast residual MLP
training, with torch.cuda.max_memory_allocated() read in the training loop after the step,
outside the compiled module. The compiled forward holds tensor ops only: one graph for the
forward, one for the backward, no graph break, no recompile (fixed batch shape, the batch
index is a tensor). TF32 is on for the fp32 matmuls outside autocast."""
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

    def forward(self, x):
        h = self.stem(x)
        for blk in self.blocks:
            h = h + blk(h)
        return self.head(h)


model = ResMLP().to(device)
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randn(256, 128, device=device)
labels = (data[:, :10].argmax(dim=1)).to(device)
peaks = []

for step in range(30):
    idx = torch.arange(step % 4 * 64, step % 4 * 64 + 64, device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(cmodel(data[idx]), labels[idx])
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    peaks.append(torch.cuda.max_memory_allocated() // 2**20)
    if step % 10 == 9:
        print(f"step {step + 1}: loss {loss.item():.2f}")
print("peak memory logged:", len(peaks) == 30 and min(peaks) >= 0)
