"""Accuracy (compiled accepts what eager refuses): a function differentiated with a torch.func
transform writes `.data` of its argument, which eager forbids inside a transform ("mutating
directly with `.data` inside functorch transform is not allowed"); compiled with the eager
backend, Dynamo graph-breaks at the write and the compiled call returns a Jacobian of a
program eager refuses to run (the class of pytorch#149911). Only the function run whole in
eager, beside the compiled one, shows it. Here a projection onto a feasible set, as
constrained-optimisation code writes it.

    compdiag run --check-accuracy corpus/acc_traced_accepts_data_write.py && compdiag explain
"""
import torch
from torch.func import jacrev

torch.manual_seed(0)
floor = torch.full((4,), 0.1)


def energy(x):
    x.data = torch.maximum(x, floor)  # <- diagnosis: project onto the feasible set
    return (x ** 3).sum()


gradient = torch.compile(jacrev(energy), backend="eager")
print(gradient(torch.randn(4)))
