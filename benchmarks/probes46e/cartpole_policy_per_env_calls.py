"""Evaluate a small actor network on 16 CartPole environments, one env at a time.

The policy is compiled, then called once per environment per time step with a
(1, 4) observation. Every call does a few microseconds of arithmetic, so the
compiled call's fixed cost (guards, the Python wrapper, the C++ kernel calls)
is most of the time and the compiled policy is no faster than eager (usually a
little slower). Set PROBE_TIME=1 to print eager vs compiled rollout times to stderr.
"""
import math
import os
import sys
import time

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)


class CartPole:
    """Classic cart-pole dynamics (Barto, Sutton & Anderson 1983), one env."""

    def __init__(self, seed):
        self.gen = torch.Generator().manual_seed(seed)
        self.reset()

    def reset(self):
        self.state = (torch.rand(4, generator=self.gen) - 0.5) * 0.1
        self.done = False

    def obs(self):
        return self.state.unsqueeze(0)

    def step(self, action):
        x, x_dot, th, th_dot = self.state.tolist()
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(th), math.sin(th)
        temp = (force + 0.05 * th_dot ** 2 * sin) / 1.1
        th_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * th_acc * cos / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * x_acc
        th, th_dot = th + 0.02 * th_dot, th_dot + 0.02 * th_acc
        self.state = torch.tensor([x, x_dot, th, th_dot])
        self.done = abs(x) > 2.4 or abs(th) > 0.2095
        return 0.0 if self.done else 1.0


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))

    def forward(self, obs):
        logits = self.net(obs)
        return torch.softmax(logits, dim=-1).argmax(dim=-1)


def rollout(policy, n_envs=16, horizon=150):
    envs = [CartPole(seed=i) for i in range(n_envs)]
    returns, episodes = [0.0] * n_envs, [0] * n_envs
    t_policy = 0.0
    with torch.no_grad():
        for _ in range(horizon):
            for i, env in enumerate(envs):
                if env.done:
                    env.reset()
                    episodes[i] += 1
                t0 = time.process_time()
                action = policy(env.obs())
                t_policy += time.process_time() - t0
                returns[i] += env.step(int(action))
    return [r / (e + 1) for r, e in zip(returns, episodes)], t_policy


def main():
    actor = Actor().eval()
    compiled = torch.compile(actor)
    rollout(compiled, n_envs=2, horizon=3)  # warm up (compile) outside the timing
    eager_ret, t_eager = rollout(actor)
    comp_ret, t_comp = rollout(compiled)
    print("mean episode return eager   :", [round(r, 1) for r in eager_ret])
    print("mean episode return compiled:", [round(r, 1) for r in comp_ret])
    print(f"overall {sum(comp_ret) / len(comp_ret):.2f}")
    if os.environ.get("PROBE_TIME"):
        print(f"policy time eager {t_eager*1e3:.1f} ms compiled {t_comp*1e3:.1f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
