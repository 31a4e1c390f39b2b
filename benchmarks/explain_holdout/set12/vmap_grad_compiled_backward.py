"""pytorch/pytorch#138422 ("vmap with torch.autograd.grad does not work on output of compiled
function", https://github.com/pytorch/pytorch/issues/138422, open): the Jacobian of a compiled
model's output, row by row, with torch.vmap over torch.autograd.grad (the vmap docs' own
example, as TorchJD does it). Eager computes it; with the model compiled, the grad inside vmap
runs AOTAutograd's compiled backward, which refuses to run under vmap/grad/vjp."""
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
compiled = torch.compile(model)

x = torch.randn(4, requires_grad=True)
y = compiled(x)
eye = torch.eye(3)


def vjp_row(v):
    return torch.autograd.grad(y, x, v, retain_graph=True)[0]


jacobian = torch.vmap(vjp_row)(eye)
print(jacobian.shape)
