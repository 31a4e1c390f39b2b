"""Vectorised point-mass environment written in torch, compiled as one graph; resets
draw from the environment's own seeded generator so runs are reproducible."""
import torch


class PointMassEnv:
    def __init__(self, n_envs, seed):
        self.gen = torch.Generator().manual_seed(seed)
        self.n_envs = n_envs
        self.pos = torch.zeros(n_envs, 2)
        self.vel = torch.zeros(n_envs, 2)

    @torch.compile(fullgraph=True)
    def step(self, force):
        self.vel = (self.vel + 0.05 * force.clamp(-1.0, 1.0)) * 0.98
        self.pos = self.pos + 0.05 * self.vel
        dist = self.pos.norm(dim=-1)
        done = dist > 2.0
        reward = -dist
        fresh = torch.rand(self.n_envs, 2, generator=self.gen) * 0.2 - 0.1
        self.pos = torch.where(done[:, None], fresh, self.pos)
        self.vel = torch.where(done[:, None], torch.zeros_like(self.vel), self.vel)
        return self.pos, reward, done


env = PointMassEnv(64, seed=123)
torch.manual_seed(0)
total, resets = 0.0, 0
for t in range(100):
    obs, reward, done = env.step(torch.randn(64, 2))
    total += reward.mean().item()
    resets += int(done.sum())
print(f"mean reward={total / 100:.4f} resets={resets}")
