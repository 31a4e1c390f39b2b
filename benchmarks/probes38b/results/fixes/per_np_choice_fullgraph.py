# Prioritized replay kept in NumPy arrays (as many gym-based agents do); the sampling and
# the loss are compiled together with fullgraph=True so that nothing falls back to Python.
import numpy as np
import torch
import torch.nn as nn

np.random.seed(0)
torch.manual_seed(0)
N, B = 128, 16
obs = np.random.randn(N, 4).astype(np.float32)
returns = np.random.randn(N).astype(np.float32)
priorities = np.abs(np.random.randn(N)) + 1e-3
critic = nn.Linear(4, 1)
opt = torch.optim.SGD(critic.parameters(), lr=0.05)


@torch.compile
def sample_and_loss(priorities):
    p = priorities / priorities.sum()
    idx = np.random.choice(N, B, p=p)
    w = (N * p[idx]) ** -0.5
    s = torch.as_tensor(obs[idx])
    g = torch.as_tensor(returns[idx])
    td = critic(s).squeeze(-1) - g
    return (torch.as_tensor(w / w.max()).float() * td ** 2).mean()


for step in range(4):
    loss = sample_and_loss(priorities)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
