"""A ragged-batch layer norm: a jagged nested tensor built inside the compiled function.

https://github.com/pytorch/pytorch/issues/183369 (open): torch.compile crashes on
torch.nested.nested_tensor_from_jagged + F.layer_norm while generating shape guards
(InternalTorchDynamoError / IndexError: list index out of range); eager, backward included,
works. On torch 2.13 the first compiled call ends with IndexError from
symbolic_shapes.issue_guard, after torch logs 'Failing guard allocated at
return F.layer_norm(nt, [12]).values().sum()' for this file's line.
"""
import torch
import torch.nn.functional as F

torch.manual_seed(11)
values = torch.randn(20, 12, requires_grad=True)
offsets = torch.tensor([0, 6, 11, 14, 20], dtype=torch.int64)


def ragged_norm_loss(v, o):
    nt = torch.nested.nested_tensor_from_jagged(v, o)
    return F.layer_norm(nt, [12]).values().sum()


ragged_norm_loss(values, offsets).backward()
print("eager grad norm", values.grad.norm().item())

compiled = torch.compile(ragged_norm_loss)
loss = compiled(values.detach().clone().requires_grad_(True), offsets)
print("compiled loss", loss.item())
