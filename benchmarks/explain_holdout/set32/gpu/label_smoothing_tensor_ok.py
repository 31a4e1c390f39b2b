"""Correct program: the annealed label smoothing of a compiled CNN loss step (channels_last,
bf16 autocast), written by hand with the smoothing coefficient as a 0-d CUDA tensor filled in
place each step: (1 - s) * nll + s * mean(-log p). The compiled function sees a tensor of the
same shape every step, so there is one compile (forward and backward), no recompile, no break;
the result equals F.cross_entropy(..., label_smoothing=s)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
).to(device).to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@torch.compile
def train_loss(x, y, smoothing):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(x)
    logp = logits.float().log_softmax(-1)
    nll = -logp.gather(1, y[:, None]).squeeze(1)
    return ((1 - smoothing) * nll - smoothing * logp.mean(-1)).mean()


images = torch.randn(256, 3, 32, 32, device=device).contiguous(memory_format=torch.channels_last)
labels = torch.randint(0, 10, (256,), device=device)
smoothing = torch.zeros((), device=device)
steps = 16
for step in range(steps):
    smoothing.fill_(0.2 * (1 - step / steps))
    i = step % 4 * 64
    loss = train_loss(images[i:i + 64], labels[i:i + 64], smoothing)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: smoothing {smoothing.item():.3f} loss {loss.item():.3f}")
