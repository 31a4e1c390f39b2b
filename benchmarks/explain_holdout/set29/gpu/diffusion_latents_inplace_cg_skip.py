"""Sampling from a small latent-diffusion denoiser with an Euler sampler; the sampler step is
compiled with mode="reduce-overhead" to remove the launch overhead of its small kernels. The
step updates the caller's latents in place (latents.add_(...)), a mutation of a graph input
that is neither a parameter nor a buffer nor a CUDA-graph output. cudagraph trees refuse to
record it: "skipping cudagraphs due to mutated inputs (1 instances). Found from : File ...,
line N, in euler_step" (cudagraph_utils.check_for_mutation), so all 20 steps run without CUDA
graphs. The fix: return the new latents (latents = latents + dt * eps) and rebind them in the
loop; a CUDA-graph output fed back as the next input is fine."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class Denoiser(nn.Module):
    def __init__(self, ch=128):
        super().__init__()
        self.t_embed = nn.Sequential(nn.Linear(1, ch), nn.SiLU(), nn.Linear(ch, ch))
        self.inp = nn.Conv2d(4, ch, 3, padding=1)
        self.mid = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, ch, 3, padding=1),
                                 nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, ch, 3, padding=1))
        self.out = nn.Conv2d(ch, 4, 3, padding=1)

    def forward(self, x, sigma):
        h = self.inp(x) + self.t_embed(sigma.view(-1, 1))[:, :, None, None]
        return self.out(h + self.mid(h))


model = Denoiser().to(device).eval()
sigmas = torch.linspace(1.0, 0.02, 21, device=device)


@torch.compile(mode="reduce-overhead")
def euler_step(latents, sigma, dt):
    eps = model(latents, sigma.expand(latents.shape[0]))
    latents.add_(eps * dt)
    return eps.pow(2).mean()


with torch.no_grad():
    latents = torch.randn(16, 4, 64, 64, device=device) * sigmas[0]
    for i in range(20):
        err = euler_step(latents, sigmas[i], sigmas[i + 1] - sigmas[i])
        if i % 5 == 4:
            print(f"step {i + 1}: eps power {err.item():.3f}")
    print("final latent std", round(latents.std().item(), 3))
