"""Recompile: the module switches between train() and eval()."""
import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.2))
compiled = torch.compile(model, backend="eager")
compiled(torch.randn(2, 8))
model.eval()
compiled(torch.randn(2, 8))  # <- diagnosis
print("ok")
