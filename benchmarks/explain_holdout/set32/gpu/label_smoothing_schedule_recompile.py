"""A CNN classifier trained on CUDA (channels_last, bf16 autocast) with a compiled loss step.
The label smoothing is annealed from 0.2 to 0 over training, a new Python float every step,
passed as label_smoothing= to F.cross_entropy inside the compiled function. Dynamo guards on
the float's value there (it is a constant argument of the aten op), so every step fails the
guard `smoothing == <last value>` and recompiles, forward and backward; after 8 versions the
recompile limit is hit and the function runs eagerly for the rest of training. The fix: keep
the smoothing out of the compiled code's constants: compute the smoothed loss by hand with the
coefficient as a tensor (e.g. (1 - s) * nll + s * -logp.mean(-1)), or step it in a few
coarse values."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
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
    return F.cross_entropy(logits.float(), y, label_smoothing=smoothing)


images = torch.randn(256, 3, 32, 32, device=device).contiguous(memory_format=torch.channels_last)
labels = torch.randint(0, 10, (256,), device=device)
steps = 16
for step in range(steps):
    smoothing = 0.2 * (1 - step / steps)
    i = step % 4 * 64
    loss = train_loss(images[i:i + 64], labels[i:i + 64], smoothing)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: smoothing {smoothing:.3f} loss {loss.item():.3f}")
