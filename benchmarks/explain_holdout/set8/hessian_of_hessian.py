"""pytorch/pytorch#154284 ("Using `compile` on `hessian(hessian)`",
https://github.com/pytorch/pytorch/issues/154284, open): the Hessian of the Hessian of a small MLP
(all fourth-order derivatives, torch.func.hessian nested) runs in eager and fails to compile:
Dynamo's fake-tensor run of the inner autograd.grad fails. The issue's MWE."""
import torch.nn as nn
from torch import compile, zeros
from torch.func import hessian

f = nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 8))
x = zeros(16)

hess = hessian(f)
print("Hessian:", x.shape, "->", hess(x).shape)
hess_hess = hessian(hess)
print("Uncompiled:", x.shape, "->", hess_hess(x).shape)
hess_hess = compile(hess_hess, backend="eager")
print("Compiled:", x.shape, "->", hess_hess(x).shape)
