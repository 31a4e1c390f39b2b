"""RL observation normalizer that logs its running mean before updating it.

A PPO-style observation normalizer keeps running mean/var buffers and updates
them in place inside the compiled policy forward.  The user made `print`
reorderable (torch._dynamo.config.reorderable_logging_functions) so the debug
line does not graph-break, and prints the running mean *before* the in-place
update (the print sits in the compiled Policy.forward).  Dynamo replays the print after the compiled graph has run, so it
prints the buffer's already-updated value: the log shows the post-update mean,
not the statistics the normalization actually used.  Policy outputs are right.
Source: pytorch PR #116106 (reorder logs), stated limitation "inputs to the
logging functions which will later be mutated in-place will not be printed
correctly"; still so on 2.13.
"""
import torch
import torch.nn as nn

torch._dynamo.config.reorderable_logging_functions.add(print)
torch.manual_seed(0)


class ObsNorm(nn.Module):
    def __init__(self, dim, momentum=0.1):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.momentum = momentum

    def forward(self, obs):
        out = (obs - self.mean) / torch.sqrt(self.var + 1e-5)
        with torch.no_grad():
            self.mean.mul_(1 - self.momentum).add_(self.momentum * obs.mean(0))
            self.var.mul_(1 - self.momentum).add_(self.momentum * obs.var(0))
        return out


class Policy(nn.Module):
    def __init__(self, obs_dim=6, act_dim=2):
        super().__init__()
        self.norm = ObsNorm(obs_dim)
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, act_dim))

    def forward(self, obs):
        print("obs-norm mean used:", self.norm.mean[:3])
        return torch.tanh(self.net(self.norm(obs)))


def main():
    policy = Policy()
    act = torch.compile(policy)
    offset = torch.tensor([5.0, -3.0, 1.0, 0.0, 2.0, -1.0])
    with torch.no_grad():
        for t in range(4):
            obs = torch.randn(16, 6) + offset
            a = act(obs)
            print(f"t={t} action mean {a.mean().item():+.4f}")


if __name__ == "__main__":
    main()
