# DQN-style update: a deque replay buffer of (s, a, r, s2, done) tuples, sampled with
# random.sample inside the compiled training step.
import random
from collections import deque
import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)

q_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
target = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
target.load_state_dict(q_net.state_dict())
opt = torch.optim.SGD(q_net.parameters(), lr=0.01)
buffer = deque(maxlen=200)
for i in range(64):
    buffer.append((torch.randn(4), torch.tensor(i % 2), torch.randn(()),
                   torch.randn(4), torch.tensor(float(i % 7 == 0))))


@torch.compile
def dqn_loss(batch, gamma):
    s, a, r, s2, d = (torch.stack(x) for x in zip(*batch))
    q = q_net(s).gather(1, a[:, None]).squeeze(1)
    with torch.no_grad():
        y = r + gamma * (1 - d) * target(s2).max(1).values
    return nn.functional.smooth_l1_loss(q, y)


for step in range(6):
    loss = dqn_loss(random.sample(buffer, 16), 0.99)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
