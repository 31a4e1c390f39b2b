"""Recompile (a global module hook that counts calls into a dict, traced into the compiled
module): after pytorch/pytorch#149502, where a global forward pre-hook registered with
`register_module_forward_pre_hook` runs inside `torch.compile(module)`. Dynamo traces the hook
as part of the module's forward and guards on the dict it writes, so each call's counts fail
the next call's guards: a compile per call until the recompile limit. torch ties the guard to
the hook's write; the fix keeps the hook out of the compiled code."""
import torch
import torch.nn as nn

calls = {}


def count_calls(module, args):
    name = type(module).__name__
    calls[name] = calls.get(name, 0) + 1  # <- diagnosis


handle = nn.modules.module.register_module_forward_pre_hook(count_calls)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
compiled = torch.compile(model)
x = torch.randn(4, 8)
for _ in range(4):
    out = compiled(x)
handle.remove()
print(sorted(calls.items()))
