"""pytorch/pytorch#194706: Inductor's CPU backend fails to compile forward-mode gradients
(torch.func.jacfwd) of a float16 function."""
import torch


def f(x):
    return torch.sum(torch.mm(torch.mm(torch.prod(x) + x, torch.sum(x) + x), torch.sum(x) + x))


x = (torch.arange(1, 10, dtype=torch.float16) / 10).reshape(3, 3)
torch.compile(torch.func.jacfwd(f))(x)
