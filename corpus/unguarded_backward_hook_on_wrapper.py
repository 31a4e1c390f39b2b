"""A change compiled code ignores: probes47c grad_spike_hook_on_wrapper. A full backward hook
registered on the module torch.compile returned never runs: the wrapper hands the hook's flag on
to the module it wraps, so its call finds no backward hook. No error, no warning; the gradient
norms the hook collects stay empty. On the module itself it runs."""
import torch
import torch.nn as nn

seen = []
model = torch.compile(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)),
                      backend="eager")
model.register_full_backward_hook(lambda m, gi, go: seen.append(go[0].norm()))  # <- diagnosis
for _ in range(3):
    model(torch.randn(5, 4)).sum().backward()
print("hook calls:", len(seen))
