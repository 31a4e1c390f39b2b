"""Training a small MLP classifier with CUDA graphs (mode="reduce-overhead"): fixed batch size,
forward and backward replayed from graphs, the optimizer step in eager, a step marker per
iteration, and the loss read on the host after backward."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

model = nn.Sequential(
    nn.Linear(256, 512), nn.LayerNorm(512), nn.GELU(),
    nn.Linear(512, 512), nn.LayerNorm(512), nn.GELU(),
    nn.Linear(512, 10),
).to(device)
compiled = torch.compile(model, mode="reduce-overhead")
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

data = torch.randn(4096, 256, device=device)
labels = (data[:, :10].argmax(dim=1)).to(device)

for epoch in range(3):
    perm = torch.randperm(data.shape[0], device=device)
    total = 0.0
    for i in range(0, data.shape[0], 512):
        idx = perm[i:i + 512]
        torch.compiler.cudagraph_mark_step_begin()
        logits = compiled(data[idx])
        loss = F.cross_entropy(logits, labels[idx])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        total += loss.item()
    print(f"epoch {epoch} mean loss {total / 8:.4f}")
