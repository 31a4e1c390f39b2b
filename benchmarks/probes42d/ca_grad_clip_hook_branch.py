"""Per-parameter gradient clipping through tensor hooks, with compiled autograd.

Each parameter gets a register_hook that rescales its gradient when its norm
exceeds a threshold (a per-tensor variant of clip_grad_norm_ common in RL and
GAN code). The model is compiled and the backward runs under compiled autograd
(the context manager form from the Compiled Autograd tutorial), so the hooks are
traced into the compiled backward graph.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

MAX_NORM = 0.05


def clip_hook(grad):
    norm = grad.norm()
    if norm > MAX_NORM:
        return grad * (MAX_NORM / norm)
    return grad


class PolicyNet(nn.Module):
    def __init__(self, obs=24, hidden=64, actions=6):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.logits = nn.Linear(hidden, actions)

    def forward(self, x):
        return self.logits(self.body(x))


model = PolicyNet()
for p in model.parameters():
    p.register_hook(clip_hook)
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.5)

g = torch.Generator().manual_seed(1)
for step in range(4):
    obs = torch.randn(32, 24, generator=g)
    actions = torch.randint(0, 6, (32,), generator=g)
    advantages = torch.randn(32, generator=g)
    logp = F.log_softmax(cmodel(obs), -1).gather(1, actions[:, None]).squeeze(1)
    loss = -(logp * advantages).mean()
    with torch._dynamo.compiled_autograd._enable(torch.compile):
        loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.5f}")
