"""Pendulum with process noise, state in numpy; the dynamics step is compiled.
Everything is seeded, and the compiled rollout is compared with the plain one."""
import numpy as np
import torch

DT, G, L = 0.05, 9.81, 1.0


def dynamics(theta, omega, torque):
    noise = np.random.normal(0.0, 0.02, size=theta.shape)
    omega = omega + DT * (-G / L * np.sin(theta) + torque) + noise
    theta = theta + DT * omega
    return theta, omega


def rollout(step_fn, seed, n_steps=100):
    np.random.seed(seed)
    torch.manual_seed(seed)
    theta = np.linspace(-1.0, 1.0, 16)
    omega = np.zeros(16)
    cost = 0.0
    for _ in range(n_steps):
        torque = -0.5 * omega
        theta, omega = step_fn(theta, omega, torque)
        cost += float(np.mean(theta ** 2 + 0.1 * omega ** 2))
    return cost, theta


compiled_dynamics = torch.compile(dynamics)
cost_eager, theta_eager = rollout(dynamics, seed=7)
cost_compiled, theta_compiled = rollout(compiled_dynamics, seed=7)
print(f"eager cost={cost_eager:.6f} compiled cost={cost_compiled:.6f}")
print(f"max |theta diff|={np.abs(theta_eager - theta_compiled).max():.6f}")
