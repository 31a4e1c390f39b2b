import math
import torch
from torch.distributions import Normal

torch.manual_seed(0)

N_PARTICLES = 512


def simulate(T=40, phi=0.9, q=0.5, r=0.8):
    x, xs, ys = torch.zeros(()), [], []
    for _ in range(T):
        x = phi * x + q * torch.randn(())
        xs.append(x)
        ys.append(x + r * torch.randn(()))
    return torch.stack(xs), torch.stack(ys)


@torch.compile
def bootstrap_filter(ys, phi, q, r):
    particles = torch.randn(N_PARTICLES)
    log_w = torch.full((N_PARTICLES,), -math.log(N_PARTICLES))
    means, log_evidence = [], torch.zeros(())
    for y in ys:
        particles = phi * particles + q * torch.randn_like(particles)
        log_w = log_w + Normal(particles, r).log_prob(y)
        log_norm = torch.logsumexp(log_w, 0)
        log_evidence = log_evidence + log_norm
        log_w = log_w - log_norm
        w = log_w.exp()
        means.append((w * particles).sum())
        ess = 1.0 / (w * w).sum()
        if ess < N_PARTICLES / 2:
            idx = torch.multinomial(w, N_PARTICLES, replacement=True)
            particles = particles[idx]
            log_w = torch.full_like(log_w, -math.log(N_PARTICLES))
    return torch.stack(means), log_evidence


xs, ys = simulate()
for phi in [0.7, 0.8, 0.9]:
    means, log_z = bootstrap_filter(ys, phi, 0.5, 0.8)
    rmse = (means - xs).pow(2).mean().sqrt()
    print(f"phi={phi}: log evidence {log_z.item():.2f}, filter rmse {rmse.item():.3f}")
