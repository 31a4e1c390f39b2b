"""Off-policy critic training: transitions go into a ring replay buffer, and a compiled
update samples a minibatch from the filled part of the buffer every step."""
import torch
import torch.nn as nn


class ReplayBuffer:
    def __init__(self, capacity, obs_dim):
        self.obs = torch.zeros(capacity, obs_dim)
        self.reward = torch.zeros(capacity)
        self.capacity, self.ptr, self.size = capacity, 0, 0

    def add(self, obs, reward):
        self.obs[self.ptr] = obs
        self.reward[self.ptr] = reward
        self.ptr = (self.ptr + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)


torch.manual_seed(0)
buffer = ReplayBuffer(10_000, 6)
critic = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(critic.parameters(), lr=1e-3)


@torch.compile
def sampled_loss(batch_size, size):
    idx = torch.randint(0, size, (batch_size,))
    pred = critic(buffer.obs[idx]).squeeze(-1)
    return nn.functional.mse_loss(pred, buffer.reward[idx])


for step in range(12):
    for _ in range(4):
        obs = torch.randn(6)
        buffer.add(obs, obs.sum().tanh())
    loss = sampled_loss(32, buffer.size)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} buffer={buffer.size} loss={loss.item():.4f}")
