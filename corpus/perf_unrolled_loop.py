"""A damped oscillator integrated with explicit Euler steps inside one compiled function (after
pytorch/pytorch#111441, "torch.compile of simple loop takes 34 seconds": Dynamo unrolls the
Python loop, so the graph holds every step)."""
import torch


@torch.compile(backend="eager")
def simulate(x, v, k=4.0, c=0.3, dt=0.01):
    trajectory = []
    for _ in range(64):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
        trajectory.append(x)
    return torch.stack(trajectory)


path = simulate(torch.ones(16), torch.zeros(16))
print(path.shape, float(path[-1].mean()))
