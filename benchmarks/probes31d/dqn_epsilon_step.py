"""DQN acting loop on a toy corridor environment: the compiled act() picks an
epsilon-greedy action from the Q-network, epsilon decaying with the global step."""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
N_STATES, N_ACTIONS = 8, 3

q_net = nn.Sequential(nn.Linear(N_STATES, 64), nn.ReLU(), nn.Linear(64, N_ACTIONS))


@torch.compile
def act(obs, global_step):
    epsilon = 0.05 + 0.95 * math.exp(-global_step / 500)
    with torch.no_grad():
        q = q_net(obs)
    explore = torch.rand(q.shape[0]) < epsilon
    random_action = torch.randint(0, N_ACTIONS, (q.shape[0],))
    return torch.where(explore, random_action, q.argmax(dim=-1))


def one_hot_state(pos):
    obs = torch.zeros(1, N_STATES)
    obs[0, pos] = 1.0
    return obs


pos, total_reward, episodes = 0, 0.0, 0
for global_step in range(40):
    action = act(one_hot_state(pos), global_step).item()
    pos = min(max(pos + action - 1, 0), N_STATES - 1)
    reward = 1.0 if pos == N_STATES - 1 else -0.01
    total_reward += reward
    if reward > 0:
        pos, episodes = 0, episodes + 1

print(f"steps=40 episodes={episodes} total_reward={total_reward:.2f}")
