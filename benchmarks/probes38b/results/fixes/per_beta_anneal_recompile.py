# Prioritized experience replay: importance-sampling weights w = (N * P(i)) ** -beta, with
# beta annealed linearly from 0.4 to 1.0 over training (Schaul et al. 2015).
import torch
import torch.nn as nn

torch.manual_seed(0)
N, B = 256, 32
obs = torch.randn(N, 6)
ret = torch.randn(N)
prio = torch.rand(N) + 0.05
value = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(value.parameters(), lr=1e-3)


@torch.compile
def weighted_td_loss(s, g, probs, beta):
    w = (N * probs) ** (-beta)
    w = w / w.max()
    td = value(s).squeeze(-1) - g
    return (w * td.pow(2)).mean(), td.detach().abs()


steps = 12
for step in range(steps):
    beta = 0.4 + (1.0 - 0.4) * step / (steps - 1)
    p = prio / prio.sum()
    idx = torch.multinomial(p, B, replacement=True)
    loss, td_abs = weighted_td_loss(obs[idx], ret[idx], p[idx], torch.tensor(beta))
    opt.zero_grad()
    loss.backward()
    opt.step()
    prio[idx] = td_abs + 0.05
    print(step, round(beta, 3), round(loss.item(), 4))
