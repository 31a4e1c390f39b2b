# Backward Euler for a stiff Duffing oscillator: each step solves the implicit
# equation with a few Newton iterations, using torch.autograd.functional.jacobian
# to get the Jacobian of the residual (pattern from the forums: "implicit solver
# with autograd Jacobian, then torch.compile the step").
import torch

torch.manual_seed(0)


def rhs(y):
    return torch.stack([y[1], -50.0 * y[0] ** 3 - 0.1 * y[1]])


@torch.compile
def step(y, h):
    z = y.clone()
    for _ in range(3):
        J = torch.func.jacrev(lambda v: v - y - h * rhs(v))(z)
        z = z - torch.linalg.solve(J, z - y - h * rhs(z))
    return z


y = torch.tensor([1.0, 0.0], dtype=torch.float64)
energies = []
for i in range(6):
    y = step(y, 0.05)
    energies.append(0.5 * y[1] ** 2 + 12.5 * y[0] ** 4)
print("y:", [round(v, 6) for v in y.tolist()])
print("energy:", [round(float(e), 6) for e in energies])
