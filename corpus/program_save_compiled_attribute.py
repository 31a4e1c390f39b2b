"""Program error set up by torch.compile: probes47c ckpt_full_model_compiled_forward. The
model's forward is replaced by its compiled wrapper (`model.forward = torch.compile(...)`), and
the whole model is saved with torch.save: pickle stores the forward by name, finds the plain
function, and refuses the wrapper. Saving the state_dict, or `model.compile()`, works."""
import io

import torch
import torch.nn as nn

model = nn.Linear(4, 2)
model.forward = torch.compile(model.forward, backend="eager")
model(torch.randn(3, 4)).sum().backward()
torch.save({"model": model, "step": 1}, io.BytesIO())  # <- diagnosis
print("saved")
