import torch
import torch.nn as nn

torch.manual_seed(0)


class DDIMScheduler:
    def __init__(self, num_train_steps=1000, num_inference_steps=25):
        betas = torch.linspace(1e-4, 0.02, num_train_steps)
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        stride = num_train_steps // num_inference_steps
        self.timesteps = list(range(num_train_steps - 1, -1, -stride))
        self.stride = stride
        self.step_index = torch.tensor(0)

    def step(self, eps, x):
        t = self.timesteps[self.step_index]
        a_t = self.alphas_cumprod[t]
        a_prev = self.alphas_cumprod[t - self.stride] if t >= self.stride else torch.tensor(1.0)
        x0 = (x - (1 - a_t).sqrt() * eps) / a_t.sqrt()
        self.step_index += 1
        return a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * eps


class Denoiser(nn.Module):
    def __init__(self, dim=16, hidden=96):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.net(torch.cat([x, t.expand(x.shape[0], 1)], dim=1))


model = Denoiser().eval()
scheduler = DDIMScheduler()


@torch.compile
def denoise_step(x):
    t = torch.tensor([[scheduler.timesteps[scheduler.step_index] / 1000.0]])
    eps = model(x, t)
    return scheduler.step(eps, x)


with torch.no_grad():
    x = torch.randn(32, 16)
    for _ in range(len(scheduler.timesteps)):
        x = denoise_step(x)
print(f"samples: mean {x.mean().item():.4f} std {x.std().item():.4f}")
