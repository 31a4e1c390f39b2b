"""pytorch/pytorch#184340: "torch.compile wraps IndexError as non-IndexError exceptions". softmax
over dim 10 of a 1-d tensor: eager raises IndexError (dimension out of range); compiled raises a
wrapper exception from the compile, and the program ends with it."""
import torch

x = torch.randn(4)


def f(t):
    return torch.softmax(t, dim=10)


compiled_f = torch.compile(f)
compiled_f(x)
