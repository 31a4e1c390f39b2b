"""PPO-style advantage computation: rollouts are cut at episode ends, so their length
varies; advantages come from a compiled GAE over the rollout."""
import torch

torch.manual_seed(0)
N_ENVS = 4


@torch.compile
def compute_gae(rewards, values, dones, gamma=0.99, lam=0.95):
    n_steps = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    last_adv = torch.zeros_like(rewards[0])
    advantages = rewards - values[:-1] + gamma * lam * dones
    returns = advantages + values[:-1]
    return advantages, returns


for rollout, n_steps in enumerate([16, 13, 16, 11, 14, 9, 16]):
    rewards = torch.randn(n_steps, N_ENVS)
    values = torch.randn(n_steps + 1, N_ENVS)
    dones = (torch.rand(n_steps, N_ENVS) < 0.05).float()
    adv, ret = compute_gae(rewards, values, dones)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    print(f"rollout {rollout} steps={n_steps} return_mean={ret.mean():.4f} adv_abs={adv.abs().mean():.4f}")
