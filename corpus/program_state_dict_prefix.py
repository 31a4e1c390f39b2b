"""Program: loading a compiled module's state_dict into a plain module fails outside compiled
code. After pytorch/pytorch#101107: torch.compile wraps the module, so its state_dict keys
start with `_orig_mod.`; torch names the missing and unexpected keys on the lines after the
first."""
import torch

model = torch.nn.Linear(4, 2)
compiled = torch.compile(model, backend="eager")
compiled(torch.randn(3, 4)).sum().backward()
checkpoint = compiled.state_dict()
fresh = torch.nn.Linear(4, 2)
fresh.load_state_dict(checkpoint)  # <- diagnosis
print("ok")
