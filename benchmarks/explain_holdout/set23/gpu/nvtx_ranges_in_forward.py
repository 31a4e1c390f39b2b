"""Training a small MLP-mixer style classifier with torch.compile, with NVTX ranges around the
stages of the forward so the run can be read in Nsight Systems (nsys profile python ...)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class Classifier(nn.Module):
    def __init__(self, dim=384, depth=4, classes=100):
        super().__init__()
        self.stem = nn.Linear(768, dim)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
            for _ in range(depth))
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        torch.cuda.nvtx.range_push("stem")
        h = self.stem(x)
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("blocks")
        for blk in self.blocks:
            h = h + blk(h)
        torch.cuda.nvtx.range_pop()
        return self.head(h.mean(dim=1))


model = Classifier().to(device)
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for step in range(30):
    x = torch.randn(32, 49, 768, device=device)
    y = torch.randint(0, 100, (32,), device=device)
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")
