# Vectorised-env rollout: 512 tensor environments, a compiled policy that samples discrete
# actions with torch.distributions.Categorical under torch.no_grad; the same seeded rollout is
# run eager and compiled. Timing goes to stderr.
import sys
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
E, OBS, ACT = 512, 8, 6
policy = nn.Sequential(nn.Linear(OBS, 64), nn.Tanh(), nn.Linear(64, ACT))
moves = torch.randn(ACT, OBS) * 0.1


def act(obs):
    logits = policy(obs)
    dist = torch.distributions.Categorical(logits=logits)
    a = dist.sample()
    return a, dist.log_prob(a), dist.entropy()


def env_step(obs, a):
    obs = obs + moves[a]
    reward = -obs.pow(2).sum(-1)
    return obs, reward


def rollout(act_fn, T=100):
    torch.manual_seed(1)
    obs = torch.randn(E, OBS)
    total = torch.zeros(E)
    with torch.no_grad():
        for _ in range(T):
            a, logp, ent = act_fn(obs)
            obs, r = env_step(obs, a)
            total += r
    return total


compiled_act = torch.compile(act)
rollout(compiled_act, 3)  # warm-up compile
for name, fn in [("eager", act), ("compiled", compiled_act)]:
    t0 = time.perf_counter()
    total = rollout(fn)
    dt = time.perf_counter() - t0
    print(name, "mean return", round(total.mean().item(), 2))
    print(name, f"{dt * 1e3:.1f} ms per 100 steps", file=sys.stderr)
