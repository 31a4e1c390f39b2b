"""Evaluate a small actor network on 1024 CartPole environments stepped as one batch.

Correct cousin of cartpole_policy_per_env_calls.py: the environments live in
one batched tensor state (a vectorised env) and the compiled policy is called
once per time step on the whole (1024, 4) batch, so its fixed per-call cost is
paid once per step. Nothing to fix. Set PROBE_TIME=1 to print eager vs compiled
policy times to stderr.
"""
import os
import sys
import time

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)


class VecCartPole:
    """Classic cart-pole dynamics (Barto, Sutton & Anderson 1983), n envs at once."""

    def __init__(self, n, seed):
        self.gen = torch.Generator().manual_seed(seed)
        self.state = (torch.rand(n, 4, generator=self.gen) - 0.5) * 0.1

    def step(self, action):
        x, x_dot, th, th_dot = self.state.unbind(1)
        force = torch.where(action == 1, 10.0, -10.0)
        cos, sin = th.cos(), th.sin()
        temp = (force + 0.05 * th_dot ** 2 * sin) / 1.1
        th_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * th_acc * cos / 1.1
        self.state = torch.stack([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                                  th + 0.02 * th_dot, th_dot + 0.02 * th_acc], dim=1)
        done = (self.state[:, 0].abs() > 2.4) | (self.state[:, 2].abs() > 0.2095)
        fresh = (torch.rand(done.shape[0], 4, generator=self.gen) - 0.5) * 0.1
        self.state = torch.where(done[:, None], fresh, self.state)  # auto-reset
        return (~done).float(), done


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))

    def forward(self, obs):
        logits = self.net(obs)
        return torch.softmax(logits, dim=-1).argmax(dim=-1)


def rollout(policy, n_envs=1024, horizon=150):
    env = VecCartPole(n_envs, seed=0)
    returns = torch.zeros(n_envs)
    episodes = torch.zeros(n_envs)
    t_policy = 0.0
    with torch.no_grad():
        for _ in range(horizon):
            t0 = time.process_time()
            action = policy(env.state)
            t_policy += time.process_time() - t0
            reward, done = env.step(action)
            returns += reward
            episodes += done.float()
    return returns / (episodes + 1), t_policy


def main():
    actor = Actor().eval()
    compiled = torch.compile(actor)
    rollout(compiled, horizon=3)  # warm up (compile) outside the timing
    eager_ret, t_eager = rollout(actor)
    comp_ret, t_comp = rollout(compiled)
    print("mean episode return eager   :", [round(r, 1) for r in eager_ret[:12].tolist()])
    print("mean episode return compiled:", [round(r, 1) for r in comp_ret[:12].tolist()])
    print(f"overall {comp_ret.mean():.2f}")
    if os.environ.get("PROBE_TIME"):
        print(f"policy time eager {t_eager*1e3:.1f} ms compiled {t_comp*1e3:.1f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
