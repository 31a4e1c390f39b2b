"""A forward hook registered after the first compiled call never runs (pytorch/pytorch#117758:
"torch.compile ignores forward hooks after compilation is triggered"): Dynamo does not guard
on a module's hooks it saw empty (skip_nnmodule_hook_guards), so the activations the hook
should collect stay empty while eager would fill them."""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
compiled = torch.compile(model)
x = torch.randn(8, 16)
compiled(x)  # the first call compiles

activations = {}
for i, layer in enumerate(model):
    if isinstance(layer, nn.Linear):
        layer.register_forward_hook(lambda m, inp, out, i=i: activations.__setitem__(i, out))  # <- diagnosis
compiled(x)
print("collected", sorted(activations))
