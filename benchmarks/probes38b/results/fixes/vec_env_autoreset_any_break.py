# Batched point-mass environments held as tensors, stepped with semi-implicit Euler; envs that
# leave the arena are auto-reset inside the compiled step (as gym's vector envs do).
import torch

torch.manual_seed(0)
N, DT, DRAG, BOUND = 64, 0.05, 0.1, 2.0
W = torch.randn(4, 2) * 0.5


def reset_state(n):
    return torch.rand(n, 4) * 0.2 - 0.1


@torch.compile
def vec_step(state, action, fresh):
    pos, vel = state[:, :2], state[:, 2:]
    vel = vel + DT * (action - DRAG * vel)
    pos = pos + DT * vel
    state = torch.cat([pos, vel], -1)
    done = pos.abs().max(-1).values > BOUND
    reward = -pos.pow(2).sum(-1)
    state = torch.where(done[:, None], fresh, state)
    return state, reward, done


state = reset_state(N)
total, resets = torch.zeros(N), 0
with torch.no_grad():
    for t in range(40):
        action = torch.tanh(state @ W) * 3.0 + torch.randn(N, 2)
        state, reward, done = vec_step(state, action, reset_state(N))
        total += reward
        resets += int(done.sum())
print("resets", resets, "mean return", round(total.mean().item(), 3))
