# after pytorch/pytorch#60691: clip_grad_norm_'s data-dependent control flow on the norm
"""Graph break inside library code on a data-dependent value: with error_if_nonfinite=True,
torch.nn.utils.clip_grad_norm_ branches in Python on whether the total norm is finite, a
value known only when the graph runs. Dynamo breaks the graph inside the library; the line
to change is the user's call of it."""
import torch

model = torch.nn.Linear(8, 4)
params = list(model.parameters())


def clip(max_norm):
    return torch.nn.utils.clip_grad_norm_(params, max_norm, error_if_nonfinite=True)  # <- diagnosis


model(torch.randn(2, 8)).sum().backward()
print(torch.compile(clip)(1.0))
