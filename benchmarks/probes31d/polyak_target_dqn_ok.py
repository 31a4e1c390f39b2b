"""Double-DQN training on random transitions with a target network updated by Polyak
averaging (lerp_ under no_grad); the TD update and the soft update are compiled."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
OBS, ACTIONS, BATCH, GAMMA, TAU = 8, 4, 64, 0.99, 0.01

online = nn.Sequential(nn.Linear(OBS, 64), nn.ReLU(), nn.Linear(64, ACTIONS))
target = copy.deepcopy(online).requires_grad_(False)
opt = torch.optim.Adam(online.parameters(), lr=1e-3)


@torch.compile
def td_loss(obs, action, reward, next_obs, done):
    q = online(obs).gather(1, action[:, None]).squeeze(1)
    with torch.no_grad():
        next_action = online(next_obs).argmax(dim=1, keepdim=True)
        next_q = target(next_obs).gather(1, next_action).squeeze(1)
        td_target = reward + GAMMA * (1.0 - done) * next_q
    return F.smooth_l1_loss(q, td_target)


@torch.compile
@torch.no_grad()
def soft_update():
    for p_target, p in zip(target.parameters(), online.parameters()):
        p_target.lerp_(p, TAU)


for step in range(30):
    obs, next_obs = torch.randn(BATCH, OBS), torch.randn(BATCH, OBS)
    action = torch.randint(0, ACTIONS, (BATCH,))
    reward = obs[:, 0] - obs[:, 1]
    done = (torch.rand(BATCH) < 0.1).float()
    loss = td_loss(obs, action, reward, next_obs, done)
    opt.zero_grad()
    loss.backward()
    opt.step()
    soft_update()
    if step % 10 == 9:
        gap = sum((a - b).abs().sum() for a, b in zip(online.parameters(), target.parameters()))
        print(f"step {step + 1} loss={loss.item():.4f} online-target gap={gap.item():.4f}")
