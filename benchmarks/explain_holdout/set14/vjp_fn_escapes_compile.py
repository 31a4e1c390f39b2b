"""pytorch/pytorch#172026 ("`torch.compile(torch.func.vjp)` crashes when creating a new `Tensor`",
open; PRs #180007 and #184958 describe the cause): Dynamo inlines torch.func.vjp, and when the
returned vjp_fn escapes the compiled function, the functorch TensorWrappers its closure captured
become graph outputs whose grad level is gone; AOTAutograd then fails reading their storage. Eager
returns a usable vjp_fn. Here: a small mechanics script that compiles "energy and its VJP" once
and applies the VJP to a unit cotangent later."""
import torch


def energy(q):
    g = torch.tensor(9.81)
    return 0.5 * (q[1:] - q[:-1]).pow(2).sum() + g * q.sum()


def energy_and_vjp(q):
    return torch.func.vjp(energy, q)


q = torch.linspace(0.0, 1.0, 6)
e, vjp_fn = energy_and_vjp(q)
print("eager:", e.item(), vjp_fn(torch.ones(()))[0])
e, vjp_fn = torch.compile(energy_and_vjp)(q)
print("compiled:", e.item(), vjp_fn(torch.ones(()))[0])
