# Denoising-autoencoder training: the noise level anneals with a global call
# counter (itertools.count) that the compiled training loss advances itself.
import itertools
import torch
import torch.nn as nn

torch.manual_seed(0)
_calls = itertools.count()
SIGMA0, DECAY = 0.5, 0.9

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)


@torch.compile
def denoise_loss(x, eps):
    sigma = SIGMA0 * DECAY ** torch.tensor(float(next(_calls)))
    noisy = x + sigma * eps
    return (model(noisy) - x).pow(2).mean()


data = torch.randn(64, 16)
noise = torch.randn(64, 16)
for step in range(12):
    batch = data[(step * 8) % 64:(step * 8) % 64 + 8]
    lo = (step * 8) % 64
    loss = denoise_loss(batch, noise[lo:lo + 8])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print(f"step {step} loss {loss.item():.3f}")
print("done", step + 1, "steps")
