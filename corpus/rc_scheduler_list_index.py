"""A diffusion sampler whose scheduler keeps its timesteps in a Python list and advances a step
counter (after huggingface/diffusers#4347, the step_index counter)."""
import torch

alphas = torch.linspace(0.999, 0.98, 1000).cumprod(0)


class Scheduler:
    def __init__(self, steps=10):
        self.timesteps = list(range(999, -1, -1000 // steps))
        self.step_index = 0

    def step(self, eps, x):
        t = self.timesteps[self.step_index]
        x = (x - (1 - alphas[t]).sqrt() * eps) / alphas[t].sqrt()
        self.step_index += 1
        return x


scheduler = Scheduler()


@torch.compile(backend="eager")
def denoise(x):
    return scheduler.step(torch.tanh(x), x)


x = torch.randn(4, 8)
for _ in range(len(scheduler.timesteps)):
    x = denoise(x)
print(x.shape)
