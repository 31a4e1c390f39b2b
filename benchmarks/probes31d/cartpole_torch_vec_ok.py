"""Vectorised cart-pole written in torch (torch.where physics, clamping, resets on
done); a compiled step runs 128 environments under a fixed linear controller."""
import torch

G, M_CART, M_POLE, LEN, DT, F_MAX = 9.8, 1.0, 0.1, 0.5, 0.02, 10.0


@torch.compile
def cartpole_step(state, action, reset_state):
    x, x_dot, theta, theta_dot = state.unbind(-1)
    force = (action * F_MAX).clamp(-F_MAX, F_MAX)
    cos, sin = theta.cos(), theta.sin()
    total = M_CART + M_POLE
    temp = (force + M_POLE * LEN * theta_dot ** 2 * sin) / total
    theta_acc = (G * sin - cos * temp) / (LEN * (4.0 / 3.0 - M_POLE * cos ** 2 / total))
    x_acc = temp - M_POLE * LEN * theta_acc * cos / total
    new = torch.stack([x + DT * x_dot, x_dot + DT * x_acc,
                       theta + DT * theta_dot, theta_dot + DT * theta_acc], dim=-1)
    done = (new[:, 0].abs() > 2.4) | (new[:, 2].abs() > 0.21)
    reward = torch.where(done, 0.0, 1.0)
    new = torch.where(done[:, None], reset_state, new)
    return new, reward, done


torch.manual_seed(0)
gains = torch.tensor([0.2, 0.5, 5.0, 0.6])
state = torch.empty(128, 4).uniform_(-0.05, 0.05)
episode_return = torch.zeros(128)
finished = []
for t in range(300):
    action = (state * gains).sum(-1).tanh() + 0.8 * torch.randn(128)
    state, reward, done = cartpole_step(state, action, torch.empty(128, 4).uniform_(-0.05, 0.05))
    episode_return += reward
    finished += episode_return[done].tolist()
    episode_return = torch.where(done, 0.0, episode_return)
print(f"episodes finished={len(finished)} running mean return={episode_return.mean():.1f}")
print(f"mean finished return={sum(finished) / max(len(finished), 1):.1f}")
