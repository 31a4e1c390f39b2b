"""PPO actor-critic update for a continuous-action policy: Normal distribution,
log_prob and entropy inside the compiled loss, fixed minibatch size."""
import torch
import torch.nn as nn
from torch.distributions import Normal

torch.manual_seed(0)
OBS, ACT, MINIBATCH, CLIP = 10, 3, 128, 0.2


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
        self.mu = nn.Linear(64, ACT)
        self.log_std = nn.Parameter(torch.full((ACT,), -0.5))
        self.value = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.body(obs)
        return Normal(self.mu(h), self.log_std.exp()), self.value(h).squeeze(-1)


model = ActorCritic()
opt = torch.optim.Adam(model.parameters(), lr=3e-4)


@torch.compile
def ppo_loss(obs, actions, old_logp, adv, returns):
    dist, value = model(obs)
    logp = dist.log_prob(actions).sum(-1)
    ratio = (logp - old_logp).exp()
    policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv).mean()
    value_loss = (value - returns).pow(2).mean()
    return policy_loss + 0.5 * value_loss - 0.01 * dist.entropy().sum(-1).mean()


obs = torch.randn(1024, OBS)
with torch.no_grad():
    dist, values = model(obs)
    actions = dist.sample()
    old_logp = dist.log_prob(actions).sum(-1)
returns = values + torch.randn(1024) * 0.5
adv = (returns - values - (returns - values).mean()) / (returns - values).std()

for epoch in range(3):
    perm = torch.randperm(1024)
    for start in range(0, 1024, MINIBATCH):
        mb = perm[start:start + MINIBATCH]
        loss = ppo_loss(obs[mb], actions[mb], old_logp[mb], adv[mb], returns[mb])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss={loss.item():.4f} log_std={model.log_std.data.tolist()}")
