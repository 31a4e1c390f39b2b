"""pytorch/pytorch#133230 ("[dynamo] torch.compile does not support compiling a module that
contains autograd within it.", https://github.com/pytorch/pytorch/issues/133230): a module whose
forward returns F and dF = autograd.grad(F, x) fails under fullgraph=True ("Unsupported: 'skip
function grad in file torch/autograd/__init__.py'")."""
import torch


class my_module(torch.nn.Module):
    def forward(self, x):
        F = x**3 - 2 * x**2 - 3
        grad_outputs = torch.ones_like(F)
        dF = torch.autograd.grad(F, x, grad_outputs=grad_outputs)[0]
        return F, dF


model = my_module()
x = torch.randn(10)
x.requires_grad_(True)
y, dy = model(x)
print(y, dy)
model = torch.compile(model, fullgraph=True, backend="inductor")
y, dy = model(x)
print(y, dy)
